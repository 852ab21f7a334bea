"""The external sources of a Pipeline subclass (``self.x = ops.ExternalSource(...)``): fed by ``feed_input`` in
``iter_setup()`` (each step calls iter_setup(), and the fed attribute becomes ``ndd.as_batch(data)``), given
``source=`` and called once in define_graph (an fn.external_source over the source), or put in an attribute by one
branch of ``__init__`` where other branches put an operator (a callable giving the source's next batch, whose end
ends the steps)."""

from __future__ import annotations

import libcst as cst

from ...walk import walk
from ...names import free_name
from . import rules, sources as external
from .class_common import _AttrUses, _normalise_commas, _self_attr
from .class_ops_objects import _OpsObject
from .graph import _source_setup
from .step_calls import Env
from .model import CannotUnroll, NameReads, code_of, expr, kwarg, stmt

ITER_SETUP = "iter_setup"
FEED_INPUT = "feed_input"
# ops.ExternalSource(...) arguments: ndd.as_batch's, and those that only tuned the pipeline's copy of the data
SOURCE_AS_BATCH = ("dtype", "layout", "device")
SOURCE_DROPPED = ("name", "ndim", "no_copy", "blocking", "use_copy_kernel", "cuda_stream")


class _Fed:
    """What iter_setup() feeds: ``attrs`` {self attribute define_graph got from an external source: that source's
    ops object}, ``graph_statements`` (``self.jpegs = self.input()``, dropped from the steps) and ``feeds``
    {iter_setup's ``self.feed_input(self.jpegs, data)`` statement: ``self.jpegs = ndd.as_batch(data, ...)``}.
    Without iter_setup, ``in_graph`` {define_graph statement: the same statement calling the external source as
    fn.external_source would} for the sources given ``source=``."""

    def __init__(self):
        self.attrs: dict[str, _OpsObject] = {}
        self.graph_statements: set = set()
        self.feeds: dict = {}
        self.setup = False  # the class has an iter_setup(), which each step calls (it may feed nothing)
        self.in_graph: dict = {}


def _source_in_graph(node: cst.ClassDef, obj: _OpsObject, graph_statements, fed: _Fed) -> None:
    """``self.src = ops.ExternalSource(source=data, ...)`` in __init__, called once in define_graph as
    ``x = self.src()``: pipeline mode made that call an fn.external_source over ``data`` (the object given when
    __init__ ran). The attribute keeps the source object (``self.src = data``) and the define_graph statement
    becomes the fn.external_source call over ``self.src``, which the graph migrates as any other. Anything else
    stays marked."""
    why = "an ops.ExternalSource that no iter_setup() feeds and that is given no source= has no dynamic-mode " \
          "counterpart"
    if kwarg(obj.call, "source") is None or any(a.keyword is None or a.star for a in obj.call.args) \
            or not obj.top_level:
        raise CannotUnroll(why, obj.statement)
    calls = []
    for statement in graph_statements:
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
            else None
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.value, cst.Call) \
                and _self_attr(small.value.func) == obj.attr:
            calls.append((statement, small))
    uses = _AttrUses(obj.attr)
    walk(node, uses)
    # one call in define_graph and the assignment in __init__: no other method reads the object
    if len(calls) != 1 or uses.count != 2 or any(a.keyword is None or a.star for a in calls[0][1].value.args):
        raise CannotUnroll(f"self.{obj.attr} (an ops.ExternalSource with source=) is not called once in "
                           f"define_graph, by a statement `x = self.{obj.attr}()` of its own", obj.statement)
    statement, assign = calls[0]
    args = [a.with_changes(value=expr(f"self.{obj.attr}")) if a.keyword.value == "source" else a
            for a in obj.call.args]
    graph_call = _normalise_commas(obj.call.with_changes(args=[*args, *assign.value.args]))
    fed.in_graph[statement] = statement.with_changes(body=[assign.with_changes(value=graph_call)])
    obj.graph_source = kwarg(obj.call, "source")


class _FeedCalls(cst.CSTVisitor):
    def __init__(self):
        self.calls: list[cst.Call] = []
        self.returns: list[cst.Return] = []

    def visit_Call(self, node):
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == FEED_INPUT:
            self.calls.append(node)

    def visit_Return(self, node):
        self.returns.append(node)


def _feeds(node: cst.ClassDef, own: dict, objects: dict, graph_statements) -> _Fed:
    """The external sources of a class whose iter_setup() feeds them (pipeline mode called iter_setup before each
    step and ran the graph on what it fed): each ``self.X = self.source()`` of define_graph, fed by one
    ``self.feed_input(self.X, data)`` statement of iter_setup's own body, becomes ``self.X = ndd.as_batch(data)``
    there (a list of samples or an array whose first dimension is the batch, as feed_input read them). Anything
    else that feeds or is fed stays marked."""
    fed = _Fed()
    sources = {attr: obj for attr, obj in objects.items() if obj.is_source}
    setup = own.get(ITER_SETUP)
    fed.setup = setup is not None
    if setup is None:
        for obj in sources.values():
            _source_in_graph(node, obj, graph_statements, fed)
        return fed
    for statement in graph_statements:
        assign = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
            else None
        if isinstance(assign, cst.Assign) and isinstance(assign.value, cst.Call) \
                and _self_attr(assign.value.func) in sources:
            attr = _self_attr(assign.targets[0].target) if len(assign.targets) == 1 else None
            if attr is None or assign.value.args:
                raise CannotUnroll(f"{code_of(assign.value)}: only `self.x = self.source()` is fed by iter_setup()",
                                   statement)
            if attr in fed.attrs:
                raise CannotUnroll(f"self.{attr} is assigned two external sources", statement)
            fed.attrs[attr] = sources[_self_attr(assign.value.func)]
            fed.graph_statements.add(statement)
    used = [obj.attr for obj in fed.attrs.values()]
    for obj in sources.values():
        if used.count(obj.attr) != 1 or not obj.top_level:
            raise CannotUnroll(f"self.{obj.attr} (an external source) is not called once in define_graph, by a "
                               f"statement of its own", obj.statement)
        for arg in obj.call.args:
            if arg.keyword is None or arg.keyword.value not in (*SOURCE_AS_BATCH, *SOURCE_DROPPED):
                raise CannotUnroll(f"ops.ExternalSource({code_of(arg)}): only feed_input() gives it data here",
                                   obj.statement)
    everywhere = _FeedCalls()
    walk(node, everywhere)
    in_setup = _FeedCalls()
    walk(setup.body, in_setup)
    if in_setup.returns:  # a step without its feed: pipeline mode failed there, the steps would reuse the last one
        raise CannotUnroll("iter_setup() may return before its feed_input() statements", setup)
    top_level = {}
    for statement in _feeding_statements(setup):
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
            else None
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and small.value in everywhere.calls:
            top_level[small.value] = statement
    for call in everywhere.calls:
        statement = top_level.get(call)
        positional = [a for a in call.args if a.keyword is None and not a.star]
        extra = [a for a in call.args if a.keyword is not None and a.keyword.value != "layout" or a.star]
        attr = _self_attr(positional[0].value) if positional else None
        if statement is None or not (isinstance(call.func.value, cst.Name) and call.func.value.value == "self") \
                or len(positional) != 2 or extra or attr not in fed.attrs:
            raise CannotUnroll(f"{code_of(call)}: only `self.feed_input(self.x, data)` statements of iter_setup "
                               f"itself, for a self.x that define_graph got from an external source, are migrated",
                               call)
        if any(_self_attr(new[0].body[0].targets[0].target) == attr for new in fed.feeds.values()):
            raise CannotUnroll(f"self.{attr} is fed twice in one iter_setup()", call)
        source = fed.attrs[attr]
        layout = kwarg(call, "layout")
        kwargs = [a for a in source.call.args if a.keyword.value in SOURCE_AS_BATCH
                  and not (layout is not None and a.keyword.value == "layout")]
        if layout is not None:
            kwargs.append(cst.Arg(layout, keyword=cst.Name("layout"), equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))))
        batch = _normalise_commas(cst.Call(func=expr("ndd.as_batch"), args=[positional[1], *kwargs]))
        fed.feeds[statement] = [statement.with_changes(body=[cst.Assign(
            targets=[cst.AssignTarget(positional[0].value)], value=batch)])]
    missing = set(fed.attrs) - {_self_attr(new[0].body[0].targets[0].target) for new in fed.feeds.values()}
    if missing:
        raise CannotUnroll(f"self.{sorted(missing)[0]} is fed by no feed_input() statement of iter_setup()", setup)
    return fed


def _ends_epoch(handler: cst.ExceptHandler) -> bool:
    return isinstance(handler.type, cst.Name) and handler.type.value == "StopIteration"


def _feeding_statements(setup: cst.FunctionDef) -> list:
    """The statements of iter_setup() that may feed: its own, and those of a ``try:`` of its own whose every
    handler catches StopIteration (the docs' shape: the data iterator ends, iter_setup() starts it again and
    raises StopIteration, which ends the epoch)."""
    out = []
    for statement in setup.body.body:
        out.append(statement)
        if isinstance(statement, cst.Try) and statement.handlers and all(map(_ends_epoch, statement.handlers)) \
                and statement.finalbody is None and statement.orelse is None:
            out.extend(statement.body.body)
    return out


def _source_branch_statements(unroller, obj: _OpsObject, call: cst.Call, statement, init: cst.FunctionDef) -> list:
    """``self.x = ops.ExternalSource(source=S, ...)`` in a branch where other branches put an operator in ``self.x``:
    a generator of S's batches, as pipeline mode's external_source read them (its kind decided as in a graph,
    ``sources.py``), and ``self.x`` a callable that gives the next one, whatever the steps' call passes (batch_size=,
    inputs): pipeline mode made the call an fn.external_source over S. Its end surfaces as StopIteration from that
    call, which ends the steps (``_SourceEnds``)."""
    taken = {p.name.value for p in [*init.params.params, *init.params.kwonly_params]}
    walk(init, names := NameReads())
    taken |= names.names
    generator, stream_name = free_name(f"{obj.attr}_batches", taken), free_name(f"{obj.attr}_stream", taken)
    env = Env(unroller.ctx, unroller._reporter, batch_size="self.batch_size", seed="self.seed",
              rng_mode=unroller.d.rng_mode, prefix="", rng_counter=unroller.rng_counter)
    symbols = unroller.ctx.facts.get("module_symbols", {})
    spec = external.describe_source(cst.Name(obj.attr), call, statement, 1, symbols, taken,
                                    lambda rule_id, message, node: env.report(rule_id, message, node),
                                    unroller.ctx.facts.get("flow"))
    walk(spec.source, read := NameReads())
    spec.var = free_name("source", read.names)  # local to the generator: only the source's own names are in the way
    steps = [*external.pull_statements(spec, "self.batch_size"), stmt(f"yield {obj.attr}\n")]
    function = cst.FunctionDef(
        name=cst.Name(generator), params=cst.Parameters(),
        body=cst.IndentedBlock([*_source_setup(spec, statement, env),
                                cst.While(test=cst.Name("True"), body=cst.IndentedBlock(steps))],
                               header=cst.TrailingWhitespace(whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(
                                   f"# what ops.ExternalSource({code_of(spec.source)}) gave: a batch a step"))))
    unroller.report(rules.EXTERNAL_SOURCE.id, f"self.{obj.attr} = ops.ExternalSource(source={code_of(spec.source)}) "
                    f"where other branches put an operator there -> a callable giving the source's next batch "
                    f"(ndd.as_batch of each item); the steps end where it ends, as pipe.run() did", statement)
    return [function, stmt(f"{stream_name} = {generator}()\n"),
            stmt(f"self.{obj.attr} = lambda *inputs, **kwargs: next({stream_name})\n")]


class _SourceEnds(cst.CSTTransformer):
    """A statement of the steps that calls ``self.x``, where ``self.x`` may hold an external source's batches
    (``_source_branch_statements``): its StopIteration ends the steps, as pipe.run() raised StopIteration from
    the source's end on (inside a generator it would be a RuntimeError)."""

    def __init__(self, attrs: set[str]):
        super().__init__()
        self.attrs = attrs

    def leave_SimpleStatementLine(self, original_node, updated_node):
        calls = _AttrCalls(self.attrs)
        walk(updated_node, calls)
        if not calls.found:
            return updated_node
        attr = calls.found[0]
        handler = cst.ExceptHandler(
            type=cst.Name("StopIteration"),
            body=cst.IndentedBlock([stmt("return\n")], header=cst.TrailingWhitespace(
                whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(
                f"# self.{attr} held an external source, and it ended: pipe.run() raised StopIteration from here on"))))
        return cst.Try(body=cst.IndentedBlock([updated_node.with_changes(leading_lines=[])]), handlers=[handler],
                       leading_lines=updated_node.leading_lines)


class _AttrCalls(cst.CSTVisitor):
    def __init__(self, attrs):
        self.attrs, self.found = attrs, []

    def visit_Call(self, node):
        if _self_attr(node.func) in self.attrs:
            self.found.append(_self_attr(node.func))
