"""Source helpers: graph parts in one module that hold a pipeline's readers, called by pipelines in another.

Real projects keep their graph parts in a module of their own (an ``ops.py`` of a detection project): a
function creates the readers, decodes and shapes what they read, and returns it; the pipelines, elsewhere,
start from its outputs::

    def labelled_images(root, size):                    def labelled_images(root, size, *, batch_size):
        jpegs, labels = fn.readers.file(file_root=root)     reader = ndd.readers.File(file_root=root)
        images = fn.decoders.image(jpegs)          ->        while True:
        return fn.resize(images, size=size), labels              for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                                                                     images = ndd.decoders.image(jpegs)
                                                                     yield ndd.resize(images, size=size), labels

A dynamic-mode reader is created once and iterated; calling the function per step would start a new reader
each time. So the function becomes a *stream*: a generator that creates its readers once (when the first
step is asked for) and yields, step after step, what the function returned, epoch after epoch as repeated
``pipe.run()`` read it (several readers: each wraps at its own epoch end, their steps zipped). It takes
``batch_size`` (the pipeline's, which the graph had implicitly, and which its input-less random operators get)
and ``seed=None`` (the pipeline's, which a reader that shuffles without a seed of its own got in pipeline mode)
as keyword-only parameters. Its random operators draw from the thread's RNG, which the calling pipeline seeds
(it runs the stream in its own steps); a pipeline whose helper the run cannot see seeds it when given a seed.

A helper with a named reader (``name="Reader"``) returns a ``ReaderStream`` over those steps instead: its readers are
created with the stream, with ``max_batch_size``, and answer ``epoch_size(name)``/``reader_meta(name)``; a pipeline
whose metadata the program asks for creates its sources' streams before its steps and takes their readers over
(``{**getattr(source, "_readers", {})}``: a stream of a helper without names has none), so the program's questions
reach a reader that lives in another module.

The convention is fixed, so the two sides agree without seeing each other: the helper's module needs no
caller to migrate the helper (a single file is migrated alone), and a pipeline that calls a source helper
of its project creates the stream once (``source = graph_parts.labelled_images(root, 12,
batch_size=batch_size)``) and takes ``next(source)`` each step (``graph.build_graph``). A function is a
source helper when it is defined once at the top of its module, is not called there (the module's own
pipelines inline their reader functions: ``graph_functions``), creates a reader at the top of its body,
takes no pipeline data (no parameter is an operator's input: those helpers run per step and take their batch
size from the data) and ends in its one ``return``.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ...names import NDD, free_name
from ..base import per_model
from ...walk import mentioning, transform, walk
from . import rules, stream
from .graph import READER_DROPPED
from .generator_code import endless_function, parenthesized
from .model import (AssignedNames, NameReads, expr, fn_path, is_reader_path, kwarg, literal_value, ndd_attr,
                    op_entry, with_kwarg, without_kwargs)


@dataclass
class SourceHelper:
    node: cst.FunctionDef  # the function as read: a reader call it returns is bound to a name first (_assigned_return)
    readers: list[int]  # indexes of the reader statements in the body
    shuffles_unseeded: bool  # a reader shuffles without its own seed: it gets the stream's seed
    random: bool = False  # it calls a random operator: the calling pipeline seeds the thread's RNG for it


def find(module: cst.Module, imports, may_mention=None) -> dict[str, SourceHelper]:
    """The module's source helpers by name (see the module docstring). ``may_mention(node, words)``
    (``MigrationContext.may_mention``): False where the node's text has none of the words (no walk there)."""
    found = {}
    for statement in exported_functions(module, may_mention).values():
        helper = _source_helper(_assigned_return(statement, imports), imports)
        if helper is not None:
            found[statement.name.value] = helper
    return found


def exported_functions(module: cst.Module, may_mention=None) -> dict[str, cst.FunctionDef]:
    """Top-level functions defined once and never named in their module: only other modules can call them
    (a graph helper module's functions). ``may_mention``: as for ``find``."""
    bound: dict[str, int] = {}
    for statement in module.body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            bound[statement.name.value] = bound.get(statement.name.value, 0) + 1
    candidates = frozenset(s.name.value for s in module.body if isinstance(s, cst.FunctionDef)
                           and bound[s.name.value] == 1)
    if not candidates:
        return {}
    # Only the candidates' names matter: a subtree whose text says none of them holds no Name of one.
    named = _CalledNames(mentioning(may_mention, candidates))
    for statement in module.body:
        walk(statement, named, named.keep)
    return {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value in candidates
            and s.name.value not in named.names}


class _CalledNames(cst.CSTVisitor):
    def __init__(self, keep=None):
        super().__init__()
        self.names: set[str] = set()
        self.keep = keep

    def visit_Name(self, node):
        self.names.add(node.value)

    def visit_FunctionDef(self, node):
        for part in (node.params, *node.decorators):  # (a def's own name is not a use of it)
            walk(part, self, self.keep)
        walk(node.body, self, self.keep)
        return False


def _source_helper(function: cst.FunctionDef, imports) -> SourceHelper | None:
    params = function.params
    if function.decorators or function.asynchronous is not None or params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) \
            or params.star_kwarg is not None or params.posonly_params:
        return None
    names = [p.name.value for p in (*params.params, *params.kwonly_params)]
    if {"batch_size", "seed"} & set(names):
        return None
    body = list(function.body.body)
    if not body or not _is_return(body[-1]) or any(_has(s, (cst.Return, cst.Yield, cst.FunctionDef, cst.Lambda,
                                                            cst.ClassDef, cst.Global, cst.Nonlocal))
                                                   for s in body[:-1]):
        return None
    readers, shuffles_unseeded = [], False
    for i, statement in enumerate(body):
        call = _reader_call(statement, imports)
        if call is not None:
            readers.append(i)
            shuffle = kwarg(call, "random_shuffle")
            shuffles_unseeded |= shuffle is not None and literal_value(shuffle) is not False and kwarg(call, "seed") is None
        elif _OperatorCalls.count(statement, imports, readers_only=True):
            return None  # a reader somewhere else (nested, inside an expression): not this shape
    if not readers or _OperatorCalls.takes_data(function, imports, set(names)):
        return None
    return SourceHelper(function, readers, shuffles_unseeded, _RandomCalls.found_in(function, imports))


class _RandomCalls(cst.CSTTransformer):
    """Input-less random operators of the stream's steps get ``batch_size=batch_size`` (one value per sample, as
    the pipeline gave); ``found_in`` says whether a function calls a random operator at all."""

    def __init__(self, imports, report=None):
        super().__init__()
        self.imports, self.report, self.found = imports, report, False

    def leave_Call(self, original_node, updated_node):
        path = fn_path(self.imports, original_node.func)
        _, entry = op_entry(path) if path is not None else (None, None)
        if not entry or not entry.get("random"):
            return updated_node
        self.found = True
        if entry.get("input_less") and self.report is not None and not any(
                a.keyword is None or a.star for a in updated_node.args) and kwarg(updated_node, "batch_size") is None:
            self.report(original_node, path)
            return with_kwarg(updated_node, "batch_size", expr("batch_size"))
        return updated_node

    @classmethod
    def found_in(cls, function: cst.FunctionDef, imports) -> bool:
        finder = cls(imports)
        transform(function.body, finder, layout=False)
        return finder.found


def _assigned_return(function: cst.FunctionDef, imports) -> cst.FunctionDef:
    """``return fn.readers.x(...)`` read as ``outputs = fn.readers.x(...)`` then ``return outputs``: the same helper,
    in the shape the rest of this module reads (a reader statement, then the return)."""
    body = list(function.body.body)
    returned = body[-1].body[0].value if body and _is_return(body[-1]) else None
    if not isinstance(returned, cst.Call) or any(a.star for a in returned.args):
        return function
    path = fn_path(imports, returned.func)
    if path is None or not is_reader_path(path):
        return function
    name = free_name("outputs", _names(function))
    assign = body[-1].with_changes(body=[cst.Assign([cst.AssignTarget(cst.Name(name))], returned)])
    return function.with_changes(body=function.body.with_changes(
        body=[*body[:-1], assign, cst.SimpleStatementLine([cst.Return(cst.Name(name))])]))


def _is_return(statement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
        and isinstance(statement.body[0], cst.Return) and statement.body[0].value is not None


def _has(node, types) -> bool:
    finder = _Finder(types)
    walk(node, finder)
    return finder.found


class _Finder(cst.CSTVisitor):
    def __init__(self, types):
        super().__init__()
        self.types, self.found = types, False

    def on_visit(self, node):
        if isinstance(node, self.types):
            self.found = True
        return not self.found


def _reader_call(statement, imports) -> cst.Call | None:
    """The reader call of ``targets = fn.readers.x(...)`` (names or a tuple of names as targets)."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if not isinstance(small, cst.Assign) or len(small.targets) != 1 or not isinstance(small.value, cst.Call) \
            or any(a.star for a in small.value.args):
        return None
    target = small.targets[0].target
    if not (isinstance(target, cst.Name) or isinstance(target, (cst.Tuple, cst.List))
            and all(isinstance(e.value, cst.Name) for e in target.elements)):
        return None
    path = fn_path(imports, small.value.func)
    return small.value if path is not None and is_reader_path(path) else None


class _OperatorCalls(cst.CSTVisitor):
    def __init__(self, imports, names: set[str], readers_only: bool):
        super().__init__()
        self.imports, self.names, self.readers_only = imports, names, readers_only
        self.calls, self.data = 0, False

    def visit_Call(self, node):
        path = fn_path(self.imports, node.func)
        if path is None:
            return
        _, entry = op_entry(path)
        if self.readers_only and not (entry and entry.get("kind") == "reader"):
            return
        self.calls += 1
        if any(a.keyword is None and isinstance(a.value, cst.Name) and a.value.value in self.names for a in node.args):
            self.data = True

    @classmethod
    def count(cls, node, imports, readers_only: bool) -> int:
        visitor = cls(imports, set(), readers_only)
        walk(node, visitor)
        return visitor.calls

    @classmethod
    def takes_data(cls, function: cst.FunctionDef, imports, params: set[str]) -> bool:
        """Whether a parameter is passed as an operator's input (pipeline data: a per-step helper)."""
        visitor = cls(imports, params, readers_only=False)
        walk(function.body, visitor)
        return visitor.data


def rewrite(function: cst.FunctionDef, helper: SourceHelper, ctx) -> cst.FunctionDef:
    """The source helper as a stream (see the module docstring)."""
    body = list(helper.node.body.body)
    taken = _names(helper.node)
    readers, targets, pre, loop = [], [], [], []
    step_names: set[str] = set()  # names that hold the stream's data, bound once per step
    for i, statement in enumerate(body[:-1]):
        if i in helper.readers:
            small = statement.body[0]
            call = small.value
            path = fn_path(ctx.imports, call.func)
            _, entry = op_entry(path)
            new_call = without_kwargs(call, READER_DROPPED).with_changes(func=ndd_attr(entry["ndd"]))
            if helper.shuffles_unseeded and kwarg(new_call, "seed") is None and \
                    literal_value(kwarg(new_call, "random_shuffle")) is not False and \
                    kwarg(new_call, "random_shuffle") is not None:
                new_call = with_kwarg(new_call, "seed", expr("seed"))
            var = free_name("reader", taken)
            taken.add(var)
            readers.append(statement.with_changes(body=[cst.Assign([cst.AssignTarget(cst.Name(var))], new_call)]))
            target = small.targets[0].target
            if isinstance(target, cst.Name) and entry.get("outputs") == 1:
                target = cst.Tuple([cst.Element(target)])  # next_epoch always yields a tuple: unpack the one output
            targets.append((var, target))
            step_names.update(_bound(statement))
            ctx.report(rules.SOURCE_HELPER.id, f"{function.name.value}: ndd.{entry['ndd']} is created once, when the "
                       f"stream starts; the function yields its outputs each step (a source helper)", call)
        elif not _OperatorCalls.count(statement, ctx.imports, readers_only=False) and not _read(statement) & step_names:
            pre.append(statement)  # plain Python on no pipeline data: the graph ran it once
        else:
            step_names.update(_bound(statement))
            loop.append(transform(statement, _RandomCalls(ctx.imports, lambda node, path: ctx.report(
                rules.RANDOM_BATCH_SIZE.id, f"{function.name.value}: fn.{path} gets batch_size=batch_size (the "
                f"calling pipeline's): one value per sample, as in the pipeline", node)), layout=False))
    returned = body[-1].body[0].value
    loop.append(cst.SimpleStatementLine([cst.Expr(cst.Yield(returned))], leading_lines=body[-1].leading_lines))
    # the loop body starts right below its `for`
    loop[0] = loop[0].with_changes(leading_lines=[line for line in loop[0].leading_lines if line.comment])
    if len(targets) == 1:
        var, target = targets[0]
        steps = [cst.While(test=cst.Name("True"), body=cst.IndentedBlock([cst.For(
            target=target, iter=expr(f"{var}.next_epoch(batch_size=batch_size)"), body=cst.IndentedBlock(loop))]))]
    else:
        endless = free_name("endless", taken)
        helper_def = endless_function(endless, "batch_size")
        zipped = cst.Tuple([cst.Element(parenthesized(t)) for _, t in targets], lpar=[], rpar=[])
        streams = ", ".join(f"{endless}({var})" for var, _ in targets)
        steps = [helper_def.with_changes(leading_lines=[cst.EmptyLine(indent=False)]),
                 cst.For(target=zipped, iter=expr(f"zip({streams})"), body=cst.IndentedBlock(loop),
                         leading_lines=[cst.EmptyLine(indent=False)])]
    # Every stream takes both, so a caller that cannot see the helper (another module migrated alone) knows
    # what to pass: seed is the pipeline's, for a reader that shuffles without its own (None: no seed given).
    extra = [cst.Param(cst.Name("batch_size")), cst.Param(cst.Name("seed"), default=cst.Name("None"), equal=cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))]
    if helper.shuffles_unseeded:
        ctx.report(rules.READER_SEED.id, f"{function.name.value} takes seed= for its shuffling reader (the calling "
                   f"pipeline's seed, as pipeline mode gave it): the order is reproducible, but not the pipeline's",
                   function)
    params = function.params
    star = params.star_arg if isinstance(params.star_arg, cst.ParamStar) else cst.ParamStar()
    params = params.with_changes(kwonly_params=[*params.kwonly_params, *extra],
                                 star_arg=params.star_arg if params.kwonly_params else star)
    named = [_Named(literal_value(kwarg(r.body[0].value, "name")), r.body[0].targets[0].target.value) for r in readers
             if isinstance(literal_value(kwarg(r.body[0].value, "name")), str)]
    if named:
        # The pipelines' programs may ask these readers for their metadata by name (pipe.epoch_size("Reader")):
        # the readers are created with the stream, with max_batch_size (asking before the first batch is then
        # safe), and the stream is a ReaderStream that answers for them; the calling pipeline's ReaderStream
        # takes them over.
        readers = [r.with_changes(body=[r.body[0].with_changes(value=with_kwarg(r.body[0].value, "max_batch_size",
                                                                                 expr("batch_size")))])
                   if kwarg(r.body[0].value, "max_batch_size") is None else r for r in readers]
        ctx.facts["source_streams"] = True
        ctx.report(rules.SOURCE_HELPER.id, f"{function.name.value} returns a {stream.CLASS_NAME} over its steps: its "
                   f"named readers ({', '.join(n.name for n in named)}) answer epoch_size()/reader_meta() for the "
                   f"pipelines that call it", function)
        body = stream.wrap(pre, readers, steps, [], named, "batch_size", function_name=free_name("steps", taken))
        return function.with_changes(params=params, body=function.body.with_changes(body=body))
    return function.with_changes(params=params, body=function.body.with_changes(body=[*pre, *readers, *steps]))


@dataclass
class _Named:
    name: str
    var: str


def _read(statement) -> set[str]:
    reads = NameReads()
    walk(statement, reads)
    return reads.names


def _bound(statement) -> set[str]:
    binds = AssignedNames()
    walk(statement, binds)
    return binds.names


def _names(function) -> set[str]:
    reads, binds = NameReads(), AssignedNames()
    walk(function, reads)
    walk(function, binds)
    return reads.names | binds.names | {p.name.value for p in (*function.params.params, *function.params.kwonly_params)}


def rewrite_module(module: cst.Module, ctx) -> cst.Module:
    """Every source helper of the module as a stream, except in units that stay in pipeline mode."""
    helpers = per_model(ctx, "source_helpers", module, lambda: find(module, ctx.imports, ctx.may_mention))
    kept = ctx.kept_statements or frozenset()
    if not helpers:
        return module
    ctx.facts["uses_ndd"] = True  # the readers are ndd's: the imports pass adds the import
    ctx.imports.aliases.setdefault("ndd", NDD)
    body = []
    for statement in module.body:
        helper = helpers.get(statement.name.value) if isinstance(statement, cst.FunctionDef) else None
        body.append(rewrite(statement, helper, ctx) if helper is not None and statement not in kept else statement)
    return module.with_changes(body=body)

