"""The read-only walk gives visitors exactly what libcst's rebuilding visit gives them."""

from __future__ import annotations

import sys
from pathlib import Path

import libcst as cst
import pytest

from dali_migrate.context import MigrationContext
from dali_migrate.names import ImportTable
from dali_migrate import dataflow, flow_bindings
from dali_migrate import walk as walk_module
from dali_migrate.transforms import imports
from dali_migrate.transforms.unroll.discovery import Discovery

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from speed_corpus import generate_scripts  # noqa: E402

SOURCES = [p.read_text() for p in sorted(ROOT.glob("golden/*/*.py")) if not p.name.endswith(".expected.py")]
SOURCES += generate_scripts(6)


def _visit(node, visitor):
    node.visit(visitor)


@pytest.mark.parametrize("index", range(len(SOURCES)))
@pytest.mark.slow  # slow: every golden case again, through another path of the engine
def test_walk_matches_visit(index, monkeypatch):
    module = cst.parse_module(SOURCES[index])
    table = ImportTable.from_module(module)

    def discovery(walker):
        found = Discovery(MigrationContext(path="x.py", source="", imports=table))
        walker(module, found)
        seen = {k: v for k, v in vars(found).items() if k != "ctx"}
        # the Pipeline(...) of an attribute pipe as its filling method sees it is a node discovery builds, new in
        # each run: compared by its code
        seen["with_blocks"] = {key: (block, module.code_for_node(call)) for key, (block, call) in
                               seen["with_blocks"].items()}
        return seen

    assert discovery(walk_module.walk) == discovery(_visit)

    def uses(walker):
        monkeypatch.setattr(imports, "walk", walker)
        found = imports._Uses()
        walker(module, found)
        return found.names, found.uses

    assert uses(walk_module.walk) == uses(_visit)

    def kinds(walker):
        monkeypatch.setattr(dataflow, "walk", walker)
        monkeypatch.setattr(flow_bindings, "walk", walker)  # the collector walks the bodies it enters itself
        flow = dataflow.DataFlow(module, table)
        return ({(n, flow.value_of(n), flow.is_builtin(n)) for n in flow.name_scope}, flow.calls_dali,
                set(flow.graph_origin.items()))

    assert kinds(walk_module.walk) == kinds(_visit)


class _Recorder(cst.CSTTransformer):
    """Records every hook libcst calls, renames ``fn`` to ``ndd``, drops ``pass`` statements and
    splits ``del`` statements in two (FlattenSentinel), so removal and flattening are exercised."""

    def __init__(self):
        super().__init__()
        self.events = []

    def on_visit(self, node):
        self.events.append(("visit", type(node).__name__))
        return super().on_visit(node)

    def on_leave(self, original, updated):
        self.events.append(("leave", type(original).__name__))
        return super().on_leave(original, updated)

    def on_visit_attribute(self, node, attribute):
        self.events.append(("enter", type(node).__name__, attribute))

    def on_leave_attribute(self, node, attribute):
        self.events.append(("exit", type(node).__name__, attribute))

    def leave_Name(self, original, updated):
        return updated.with_changes(value="ndd") if updated.value == "fn" else updated

    def leave_Pass(self, original, updated):
        return cst.RemoveFromParent()

    def leave_Del(self, original, updated):
        return cst.FlattenSentinel([updated, cst.Expr(cst.Name("deleted"))])


EXTRA = '''
from os import path, sep as separator
from nvidia.dali import *
def f(a, /, b: int = 1, *args, c, **kw) -> None:
    pass
    x = fn.resize(a) if b else [y async for y in z]
    del x
    try:
        pass
    except (A, B) as e:
        raise
    print(f"{x!r:>{w}} {fn}")
class C(fn.Base, metaclass=M):
    pass
lambda q, *, r=fn: q[1:2, ::3]
'''


@pytest.mark.parametrize("index", range(len(SOURCES) + 1))
@pytest.mark.slow  # slow: every golden case again, through another path of the engine
def test_transform_matches_visit(index):
    """Same hooks in the same order, same result; untouched subtrees keep their identity."""
    source = SOURCES[index] if index < len(SOURCES) else EXTRA
    module = cst.parse_module(source)
    by_visit, by_transform = _Recorder(), _Recorder()
    expected = module.visit(by_visit)
    got = walk_module.transform(module, by_transform)
    assert got.code == expected.code
    assert by_transform.events == by_visit.events
    if "fn" not in source and "pass" not in source and "del " not in source:
        assert got is module
    for old, new in zip(module.body, got.body):
        text = module.code_for_node(old)
        if "fn" not in text and "pass" not in text and "del " not in text:
            assert new is old


def test_visit_order_is_read_from_libcst():
    """Plain field-by-field rebuilds are read in libcst's order (a call's parentheses and function
    before its arguments; decorators before a function's body); the rest fall back to libcst."""
    call = [name for name, _ in walk_module._visit_order(cst.Call)]
    assert call.index("lpar") < call.index("func") < call.index("args") < call.index("rpar")
    function = [name for name, _ in walk_module._visit_order(cst.FunctionDef)]
    assert function.index("decorators") < function.index("params") < function.index("body")
    names = dict(walk_module._visit_order(cst.ImportFrom))
    assert names["names"] == walk_module._EITHER  # a sequence of aliases or one ImportStar


def test_pass_transformers_have_no_layout_hooks():
    """run_transformer does not enter layout, nor do the unroll's helper transforms (layout=False); a hook
    on a layout node would silently never run."""
    import dali_migrate.transforms  # noqa: F401  (imports every pass module)
    from dali_migrate.transforms.base import MigrationTransformer
    from dali_migrate.transforms.unroll import (call_sites, class_common, class_ops_objects, consumers, definitions,
                                                finish, random_outside, step_calls)

    layout = {"EmptyLine", "Comment", "TrailingWhitespace", "Newline", "SimpleWhitespace",
              "ParenthesizedWhitespace", "Comma", "Semicolon", "LeftParen", "RightParen"}
    # (the Unroller's parts are mixins, not subclasses of MigrationTransformer: their hooks are listed here)
    pending, seen = [MigrationTransformer, step_calls._RandomFixer, class_common._InitRewrite,
                     class_ops_objects._GraphCalls, consumers._Substitute, definitions.DefinitionRewrites,
                     call_sites.CallSiteRewrites, random_outside.RandomOpsOutside, finish.ModuleFinish], []
    while pending:
        cls = pending.pop()
        seen.append(cls)
        pending.extend(cls.__subclasses__())
    assert len(seen) >= 6
    hooks = {(cls.__name__, name) for cls in seen for name in vars(cls)
             if name.split("_", 1)[0] in ("visit", "leave") and name.split("_", 1)[-1] in layout}
    assert hooks == set()


@pytest.mark.parametrize("index", range(len(SOURCES)))
@pytest.mark.slow  # slow: every golden case again, through another path of the engine
def test_inline_pass_walk_matches_the_generic_one(index, monkeypatch):
    """run_transformer's inlined walk gives the same migration and findings as transform() with the
    transformer's own on_visit/on_leave."""
    from dali_migrate import engine
    from dali_migrate.transforms import base

    inline = engine.migrate_source(SOURCES[index], "x.py")
    monkeypatch.setattr(base, "_run_inline", lambda module, t: walk_module.transform(module, t, layout=False))
    generic = engine.migrate_source(SOURCES[index], "x.py")
    assert inline.migrated == generic.migrated
    assert [f.to_dict() for f in inline.findings] == [f.to_dict() for f in generic.findings]


def _hook_recorder(pruned_type: str):
    """A read-only visitor class with visit_/leave_ hooks for every node type that records its calls
    and does not enter nodes of ``pruned_type``."""
    def visit(self, node):
        self.events.append(("visit", node))
        return type(node).__name__ != pruned_type

    def leave(self, node):
        self.events.append(("leave", node))

    hooks = {}
    for name in dir(cst):
        cls = getattr(cst, name)
        if isinstance(cls, type) and issubclass(cls, cst.CSTNode) and hasattr(cst.CSTVisitor, f"visit_{name}"):
            hooks[f"visit_{name}"], hooks[f"leave_{name}"] = visit, leave
    recorder = type(f"Prunes{pruned_type}", (cst.CSTVisitor,), hooks)
    original_init = recorder.__init__

    def __init__(self):
        original_init(self)
        self.events = []

    recorder.__init__ = __init__
    return recorder


PRUNED_TYPES = ("Call", "FunctionDef", "Attribute", "Nothing")


def _walks_alone(module):
    """The calls each pruning recorder gets from its own walk of ``module``."""
    alone = []
    for cls in [_hook_recorder(t) for t in PRUNED_TYPES]:
        visitor = cls()
        walk_module.walk(module, visitor)
        alone.append(visitor.events)
    return alone


# Sources where the four prunings give four different walks (a file without functions prunes nothing at
# FunctionDef): chosen by that property, not by position, so new golden files do not empty the test.
DIVERSE = [s for s in SOURCES if len({len(e) for e in _walks_alone(cst.parse_module(s))}) == len(PRUNED_TYPES)]


@pytest.mark.parametrize("index", range(0, len(DIVERSE), 5))
def test_walk_many_gives_each_visitor_its_own_walk(index):
    """One traversal for several visitors: each gets the calls its own walk gives, its pruning included,
    whatever the others prune."""
    module = cst.parse_module(DIVERSE[index])
    classes = [_hook_recorder(t) for t in PRUNED_TYPES]
    alone = _walks_alone(module)
    together = [cls() for cls in classes]
    walk_module.walk_many(module, together)
    assert [v.events for v in together] == alone
    assert len({len(events) for events in alone}) == len(alone)  # the prunings really differ


def _all_subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _all_subclasses(sub)


PRUNING_SOURCES = [p.read_text() for p in sorted(ROOT.glob("golden/**/*.py")) if not p.name.endswith(".expected.py")]
PRUNING_SOURCES += [p.read_text() for p in sorted(ROOT.glob("examples/**/*.py"))]
PRUNING_SOURCES += generate_scripts(30, seed=11)


@pytest.mark.slow  # slow: the whole golden tree and generated scripts, migrated twice (minutes)
def test_pruning_by_words_changes_nothing(monkeypatch):
    """Passes skip subtrees without their words (``relevant_names``: unchanged text, templates and the
    EpochIterator in ``built_words``). With every pass walking every subtree instead, each file
    migrates to the same text with the same findings."""
    from dali_migrate import engine
    from dali_migrate.transforms import base

    pruned = [engine.migrate_source(source, "x.py") for source in PRUNING_SOURCES]
    for cls in [base.MigrationTransformer, *_all_subclasses(base.MigrationTransformer)]:
        monkeypatch.setattr(cls, "relevant_names", lambda self: None)
    assert len(PRUNING_SOURCES) > 80
    for source, fast in zip(PRUNING_SOURCES, pruned):
        full = engine.migrate_source(source, "x.py")
        assert fast.migrated == full.migrated
        assert [f.to_dict() for f in fast.findings] == [f.to_dict() for f in full.findings]
    assert sum(result.changed for result in pruned) > 60


FEEDER = '''import nvidia.dali.fn as fn
from nvidia.dali import Pipeline


class Feeder(Pipeline):
    def __init__(self):
        super().__init__(batch_size=2, num_threads=1, device_id=None)

    def define_graph(self):
        return fn.external_source(name="x")

    def push(self, data):
        self.feed_input("x", data)
'''


def test_a_method_name_alone_keeps_a_subtree_in_the_unroll():
    """`self.feed_input(...)` in a helper method mentions no DALI alias and no pipeline variable: only
    the method name tells the unroll to mark it."""
    from dali_migrate import engine

    result = engine.migrate_source(FEEDER, "feeder.py")
    assert [(f.rule, f.line) for f in result.findings if f.rule == "DM214"] == [("DM214", 13)]
    assert "# dali-migrate: DM214 feed_input" in result.migrated


TWIN_CLASSES = "import nvidia.dali.ops as ops\nimport nvidia.dali.types as types\nfrom nvidia.dali import Pipeline\n" + "".join(
    f'''

class {name}(Pipeline):
    def __init__(self, root):
        super().__init__(batch_size=2, num_threads=1, device_id=None, seed=1)
        self.input = ops.readers.File(file_root=root)
        self.decode = ops.decoders.Image(device="mixed", output_type=types.RGB)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return self.decode(jpegs), labels
''' for name in ("TrainPipe", "ValPipe"))


def test_a_template_is_parsed_once_per_process_but_used_once_per_module():
    """Templates are kept per process (the same text in every file); inside one module each use is its
    own node, so that the findings of two identical pipelines point at their own lines."""
    from dali_migrate import context, engine, source

    result = engine.migrate_source(TWIN_CLASSES, "twins.py")
    assert [f.line for f in result.findings if f.rule == "DM110"] == [10, 21]  # device="mixed", twice
    assert result.migrated.count('ndd.decoders.image(jpegs, device="gpu", output_type=types.RGB)') == 2

    ctx = context.MigrationContext(path="x.py", source="", imports=None)
    token = source._BUILT_WORDS.set(ctx.built_words)
    try:
        first = source.parse_statement("ndd.set_num_threads(4)\n")
        second = source.parse_statement("ndd.set_num_threads(4)\n")
        leaf = [source.parse_expression("batch_size") for _ in range(2)]
    finally:
        source._BUILT_WORDS.reset(token)
    assert first is not second and first.deep_equals(second)
    assert ctx.built_words[first] == ctx.built_words[second] == frozenset({"ndd", "set_num_threads"})
    assert leaf[0] is not leaf[1]  # a one-name template too
    token = source._BUILT_WORDS.set({})
    try:
        assert source.parse_statement("ndd.set_num_threads(4)\n") is first  # the next module reuses it
    finally:
        source._BUILT_WORDS.reset(token)


@pytest.mark.slow  # slow: the whole golden tree and generated scripts, migrated twice (minutes)
def test_the_final_print_that_copies_unchanged_text_prints_what_libcst_prints(monkeypatch):
    """print_code(module, layout) copies the text of statements and one-line expressions a pass left
    unchanged; every migrated file comes out as libcst's own print of the migrated tree. The corpus has
    CRLF line endings, files without a final line break, and statements that unroll moved deeper."""
    import speed

    from dali_migrate import engine

    sources = PRUNING_SOURCES + speed.generate(20) + [
        s.replace("\n", "\r\n") for s in PRUNING_SOURCES[:10]] + [s.rstrip("\n") for s in PRUNING_SOURCES[:10]]
    fast = [engine.migrate_source(source, "x.py") for source in sources]
    monkeypatch.setattr(engine, "print_code", lambda module, layout=None: module.code)
    slow = [engine.migrate_source(source, "x.py") for source in sources]
    assert all(a.migrated == b.migrated for a, b in zip(fast, slow))
    assert sum(a.changed for a in fast) > 80
    assert sum(a.migrated.endswith("\n") for a in fast) <= len(sources) - 10


@pytest.mark.parametrize("index", range(0, len(SOURCES), 7))
def test_line_hooks_call_what_an_on_visit_around_statements_called(index):
    """walk.line_hooks: enter_line before a statement's visit hook, leave_line after its leave hook, a visit hook that
    says False skipping the statement's body: the calls an on_visit/on_leave pair made (and the fast walk is taken)."""
    module = cst.parse_module(SOURCES[index])

    class Hooks(cst.CSTVisitor):
        def __init__(self):
            super().__init__()
            self.log = []

        def visit_FunctionDef(self, node):
            self.log.append(("def", node))
            return not node.name.value.startswith("_")  # some bodies skipped

        def leave_If(self, node):
            self.log.append(("left if", node))

        def visit_Name(self, node):
            self.log.append(("name", node))

    class Around(Hooks):
        def on_visit(self, node):
            if walk_module.holds_a_line(type(node)):
                self.log.append(("enter", node))
            hook = walk_module.hooks_for(type(self), type(node))[0]
            return hook is None or hook(self, node) is not False

        def on_leave(self, node):
            hook = walk_module.hooks_for(type(self), type(node))[1]
            if hook is not None:
                hook(self, node)
            if walk_module.holds_a_line(type(node)):
                self.log.append(("leave", node))

    @walk_module.line_hooks
    class Lines(Hooks):
        def enter_line(self, node):
            self.log.append(("enter", node))

        def leave_line(self, node):
            self.log.append(("leave", node))

    around, lines = Around(), Lines()
    walk_module.walk(module, around)
    walk_module.walk(module, lines)
    assert Lines.on_visit is cst.CSTVisitor.on_visit and Lines.on_leave is cst.CSTVisitor.on_leave
    assert [kind for kind, _ in lines.log].count("enter") > 3
    assert [(kind, id(node)) for kind, node in lines.log] == [(kind, id(node)) for kind, node in around.log]
