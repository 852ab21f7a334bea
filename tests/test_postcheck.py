"""The post-migration check's reading of module-level order (``postcheck.undefined_names``), of the classes
a migration wrote (``helpers.is_tool_written_class``), and of the model it is given (``DataFlow.built_from``)."""
from pathlib import Path

import libcst as cst
import pytest

from dali_migrate import dataflow as df
from dali_migrate import postcheck
from dali_migrate.names import ImportTable
from dali_migrate.transforms.unroll.helpers import is_tool_written_class
from dali_migrate.walk import walk


def test_a_class_read_before_its_definition_runs_is_undefined_there():
    module = cst.parse_module("loader = Loader()\n\n\nclass Loader:\n    pass\n")
    assert set(postcheck.undefined_names(module)) == {"Loader"}


def test_a_class_read_after_its_definition_is_defined():
    module = cst.parse_module("class Loader:\n    pass\n\n\nloader = Loader()\n")
    assert postcheck.undefined_names(module) == {}


def test_tool_written_classes_are_told_by_their_docstring():
    written, users = cst.parse_module(
        'class EpochIterator:\n    """Written by dali-migrate. Counts as the plugin does."""\n\n\n'
        'class MyIterator:\n    """My own iterator."""\n').body
    assert is_tool_written_class(written)
    assert not is_tool_written_class(users)


# -- the model of a module no pass changed is read, not built again (DataFlow.built_from) -------------------------
GOLDEN = Path(__file__).resolve().parent.parent / "golden"
MISUSED = ("import nvidia.dali.experimental.dynamic as ndd\n\n"
           "batch = ndd.random.uniform(batch_size=2)\n"
           "first = batch.at(0)\n"
           "print(len(batch), later)\n"
           "later = 1\n")


def _seen(violations) -> list:
    return [(v.node, v.origins, v.message, v.statement) for v in violations]


class _AskEverything(cst.CSTVisitor):
    """Asks the model of every expression, as the passes ask before the check: what a model keeps on the side
    (memos, ``derived``) must not change what the check then reads in it."""

    def __init__(self, model):
        self.model = model

    def on_visit(self, node):
        if isinstance(node, cst.BaseExpression):
            self.model.value_of(node)
        return True


def _asked(model):
    walk(model.module, _AskEverything(model))
    return model


def test_the_check_reads_the_model_it_was_given_where_that_is_the_model_it_would_build(monkeypatch):
    module = cst.parse_module(MISUSED)
    model = _asked(df.DataFlow(module, ImportTable.from_module(module)))
    fresh = postcheck.check(module, {}, frozenset())
    built = []
    original_init = df.DataFlow.__init__
    monkeypatch.setattr(df.DataFlow, "__init__", lambda self, *a, **k: built.append(1) or original_init(self, *a, **k))
    reused = postcheck.check(module, {}, frozenset(), model=model)
    assert not built
    assert _seen(reused) == _seen(fresh)
    assert {v.message.split(":")[0] for v in fresh} >= {"batch.at", "len(batch)", "later is read before the statement "
                                                                                   "that defines it"}


def test_a_model_is_not_read_for_another_module_or_other_inputs():
    module = cst.parse_module(MISUSED)
    imports = ImportTable.from_module(module)
    model = df.DataFlow(module, imports.copy())
    assert model.built_from(module, imports) and model.built_from(module, imports, {}, None)
    assert not model.built_from(cst.parse_module(MISUSED), imports)  # the same text, another tree
    assert not model.built_from(module, imports, {"batch": "batch"})  # a pipeline the migration wrote
    assert not model.built_from(module, imports, imported_generators={"gen": object()})
    more = imports.copy()
    more.aliases["fn"] = "nvidia.dali.fn"
    assert not model.built_from(module, more)
    model.imports.aliases["fn"] = "nvidia.dali.fn"  # its own table changed after it was solved
    assert not model.built_from(module, more) and not model.built_from(module, imports)


@pytest.mark.parametrize("path", sorted(p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*.py")
                                        if not p.name.endswith(".expected.py")))
def test_the_check_with_the_model_given_finds_what_it_finds_alone(path):
    module = cst.parse_module((GOLDEN / path).read_text())
    model = _asked(df.DataFlow(module, ImportTable.from_module(module)))
    assert _seen(postcheck.check(module, {}, frozenset(), model=model)) == _seen(postcheck.check(module, {}, frozenset()))
