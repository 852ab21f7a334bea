"""Walks that skip what the text cannot hold give what the whole walks give.

Several read-only questions about a module look for nodes whose text must say a word: a seeded call says
``seed``, a device variable's uses say its name, a class says ``class``, a call of a function says the function's
name. Given ``MigrationContext.may_mention``, they walk only the subtrees whose text (or, for what a pass built,
whose words) has one; without it, everything. Each is asked both ways here, of the golden cases and the modules of
the golden programs, and must answer the same (``benchmarks/identity.py`` shows the same of whole migrations).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dali_migrate.context import MigrationContext
from dali_migrate.dataflow import DataFlow
from dali_migrate.names import ImportTable
from dali_migrate.source import code_for_node, parse_module, print_with_spans
from dali_migrate.transforms import arguments, imports as imports_pass
from dali_migrate.transforms.unroll import (adapted, attribute_pipes, graph_functions, iterator_subclass,
                                            source_helpers)
from dali_migrate.transforms.unroll.model import seeded_calls

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(p for p in ROOT.glob("golden/**/*.py") if not p.name.endswith(".expected.py"))


def _parsed(path: Path):
    source = path.read_text()
    module = parse_module(source)
    _, layout = print_with_spans(module)
    imports = ImportTable.from_module(module)
    ctx = MigrationContext(path=str(path), source=source, imports=imports, layout=layout, positions=layout.starts)
    return module, imports, ctx


def _names(found) -> list:
    """What a finder found, by name and node identity (its dataclasses compare nodes by identity anyway)."""
    return sorted((name, id(getattr(value, "node", value))) for name, value in found.items())


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT / "golden")))
def test_the_same_answers_with_and_without_the_text(path):
    module, imports, ctx = _parsed(path)
    mentions = ctx.may_mention
    assert _helpers(source_helpers.find(module, imports, mentions)) == _helpers(source_helpers.find(module, imports))
    assert list(source_helpers.exported_functions(module, mentions)) == list(source_helpers.exported_functions(module))
    readers, seeded = graph_functions.find(module, imports, mentions)
    all_readers, all_seeded = graph_functions.find(module, imports)
    assert (_names(readers), _names(seeded)) == (_names(all_readers), _names(all_seeded))
    assert seeded_calls(module, imports, may_mention=mentions) == seeded_calls(module, imports)
    subclasses = iterator_subclass.find(module, imports, lambda node: False, may_mention=mentions)
    every = iterator_subclass.find(module, imports, lambda node: False)
    assert {n: [id(c) for c in s.sites] for n, s in subclasses.items()} == \
        {n: [id(c) for c in s.sites] for n, s in every.items()}
    assert [(p.key, id(p.block)) for p in attribute_pipes.find(module, imports, mentions)] == \
        [(p.key, id(p.block)) for p in attribute_pipes.find(module, imports)]
    for name in ("ndd", "fn", "pipe", "EpochIterator", "np"):
        assert imports_pass.first_use(module, name, mentions) == imports_pass.first_use(module, name), name
    flow = DataFlow(module, imports)
    made = []

    def make_flow(seeds=None):
        made.append(seeds)
        return DataFlow(module, imports, adapted=seeds)

    assert adapted.find(module, flow, make_flow, ctx.source, mentions) == adapted.find(module, flow, make_flow,
                                                                                        ctx.source)
    ctx.facts["flow"] = flow
    guarded = arguments.device_variables(ctx)
    ctx.may_mention = lambda node, words: True  # (every subtree walked)
    assert _device(guarded) == _device(arguments.device_variables(ctx))


def _helpers(found) -> list:
    """Source helpers by name, with what each says (its ``node`` is rebuilt by each call: compared as code)."""
    return sorted((name, code_for_node(h.node), h.readers, h.shuffles_unseeded, h.random) for name, h in found.items())


def _device(found) -> tuple:
    literals, names, risky = found
    return sorted((id(k), v) for k, v in literals.items()), sorted(names), sorted(id(n) for n in risky)


def test_the_guards_skip_most_of_a_module():
    """Not a test that cannot fail: the guarded walks must visit fewer nodes, or they guard nothing."""
    from dali_migrate import walk as walk_module

    module, imports, ctx = _parsed(ROOT / "golden" / "runnable" / "roi_crop_patch" / "main.py")
    counted = []
    original = walk_module._walk_plans

    def counting(node, plan, visitor, plans, cls, keep):
        counted.append(node)
        return original(node, plan, visitor, plans, cls, keep)

    walk_module._walk_plans = counting
    try:
        seeded_calls(module, imports)
        whole = len(counted)
        counted.clear()
        seeded_calls(module, imports, may_mention=ctx.may_mention)
        guarded = len(counted)
    finally:
        walk_module._walk_plans = original
    assert guarded < whole / 4
