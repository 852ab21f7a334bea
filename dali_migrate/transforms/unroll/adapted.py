"""Pipelines a hand-written iterator class is given from elsewhere, adapted when it is made (DM242).

Real projects define a pipeline class and an iterator class over pipelines in one module (``coco_pipeline.py``:
``class COCOPipeline(Pipeline)`` and ``class DALICOCOIterator``, which calls ``p.build()``, ``p.schedule_run()``,
``p.share_outputs()``, ``p.release_outputs()``, reads ``max_batch_size``, ``epoch_size(name)``, ``device_id``) and
build the pipelines in another module (``train.py``). Migrated alone, the class module cannot see what its iterator
gets: this module's pipelines from a migrated caller, or ``nvidia.dali`` Pipelines from a caller that was not
migrated (or a third party). So the iterator decides when it is made: its parameter goes through
``ReaderStream.adapt(...)``, which leaves migrated pipelines as they are and wraps each ``nvidia.dali`` Pipeline in a
ReaderStream over its ``run()`` outputs, copied into ndd Batches (``ndd.as_batch`` of a TensorList would share the
buffer the next run reuses). Either way the class then sees one interface, the one the migration writes for it: the
steps by ``next(p)``, ``max_batch_size``, ``epoch_size(name)``, ``reader_meta(name)``, ``device_id``.

Which parameters: those the flow model (``dataflow.py``) cannot trace, on which the class calls pipeline-only API
(``units.UNTRACED_PIPELINE_API``). The model itself says where each such call's value comes from: the parameters of
the module's top-level functions and classes (``__init__``) are seeded with origins of their own, and the origins
that reach the calls name the parameters. Each of them then holds the pipelines of an origin of its own
(``dataflow.ADAPTED_PREFIX``), a pipeline the migration writes as a ReaderStream, and the rest of the migration
rewrites the class as for the module's own pipelines.
"""

from __future__ import annotations

import libcst as cst

from ... import dataflow as df
from ...walk import mentioning, walk
from .helpers import is_helper_import, is_tool_written_class
from .model import stmt

ADAPT = "adapt"  # ReaderStream.adapt (dali_migrate/runtime/reader_stream.py)
# The pipeline-only calls that tell a parameter holds pipelines (units.UNTRACED_PIPELINE_API without the ones a
# Pipeline subclass makes on itself: feed_input in iter_setup, deserialize_and_build).
# A pipeline's metadata tells it as well (``p.epoch_size("Reader")``, ``p.max_batch_size``: no other library's object
# has these names), so an iterator class that only calls ``p.run()`` and reads them is found too.
_TELLING = frozenset({"schedule_run", "share_outputs", "release_outputs", "_prefetch", "_run_once", "epoch_size",
                      "max_batch_size", "reader_meta"})
# ... except in a module an earlier run migrated (it uses the run-time helpers): there the metadata is a ReaderStream's
# own API, and adapting what a function is given would change the file on every run.
_METADATA = frozenset({"epoch_size", "max_batch_size", "reader_meta"})
# A value built and run, ``p.build()`` and ``p.run()`` both without arguments, tells it too in a module that defines
# pipelines of its own (a helper such as ``def dali_run(pipe): pipe.build(); return pipe.run()`` beside them that
# nothing in the run calls: left as it was, it would receive the migrated generators of the module's pipelines).
# Either name alone is too common to tell, and so are both in a module with no pipeline (a worker's build/run).
BUILT_AND_RUN = frozenset({"build", "run"})
_CALLED = _TELLING | BUILT_AND_RUN


class _Calls(cst.CSTVisitor):
    """The pipeline-only calls whose value the model cannot trace, outside the classes dali-migrate wrote."""

    def __init__(self, flow):
        super().__init__()
        self.flow = flow
        self.found: list[cst.CSTNode] = []  # the values the calls are made on
        self.built_and_run: dict[str, list[cst.CSTNode]] = {name: [] for name in sorted(BUILT_AND_RUN)}
        self._tool_written = 0

    def visit_ClassDef(self, node):
        self._tool_written += is_tool_written_class(node)

    def leave_ClassDef(self, node):
        self._tool_written -= is_tool_written_class(node)

    def visit_Module(self, node):
        self.migrated = any(
            isinstance(s, cst.ClassDef) and is_tool_written_class(s)
            or isinstance(s, cst.SimpleStatementLine) and is_helper_import(s) for s in node.body)

    migrated = False  # the module uses the run-time helpers an earlier run wrote

    def visit_Attribute(self, node):
        if node.attr.value in _TELLING and not self._tool_written and self.flow.value_of(node.value) == df.UNKNOWN \
                and not (self.migrated and node.attr.value in _METADATA):
            self.found.append(node.value)

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in BUILT_AND_RUN and not node.args \
                and not self._tool_written and self.flow.value_of(func.value) == df.UNKNOWN:
            self.built_and_run[func.attr.value].append(func.value)

    def built_and_run_tells(self) -> bool:
        return all(self.built_and_run.values()) and self.flow.defines_pipelines()


class _Words(cst.CSTVisitor):
    def __init__(self):
        super().__init__()
        self.found = False
        self._built_and_run: set[str] = set()

    def visit_Attribute(self, node):
        self.found |= node.attr.value in _TELLING or node.attr.value == ADAPT
        if node.attr.value in BUILT_AND_RUN:
            self._built_and_run.add(node.attr.value)
            self.found |= len(self._built_and_run) == len(BUILT_AND_RUN)


def mentions(module: cst.Module) -> bool:
    """The module calls pipeline-only API that tells a parameter holds pipelines, or adapts one: worth a model."""
    words = _Words()
    walk(module, words)
    return words.found


def origin(name: str, param: str) -> str:
    return f"{df.ADAPTED_PREFIX}{name}({param})>"


def find(module: cst.Module, flow, make_flow, text: str | None = None,
         may_mention=None) -> dict[str, dict[str, df.Value]]:
    """{top-level function or class: {parameter: value}} for the parameters to adapt at run time, with the value each
    holds then (a pipeline, or a list of them, of an origin of its own). ``flow``: the module's model;
    ``make_flow(adapted)``: the same model with parameters seeded (``DataFlow(adapted=...)``); ``text``: the source
    ``module`` was parsed from (where none of the telling attribute names is a word of it, there is nothing to find);
    ``may_mention(node, words)`` (``MigrationContext.may_mention``): False where the node's text has none of the words
    (a subtree that says none of the attributes holds no call that tells: not walked)."""
    if text is not None and not any(word in text for word in _TELLING) \
            and not all(f".{word}()" in text for word in BUILT_AND_RUN):
        return {}
    calls = _Calls(flow)
    walk(module, calls, mentioning(may_mention, _CALLED))
    if not calls.found and not calls.built_and_run_tells():
        return {}
    candidates: dict[str, dict[str, df.Value]] = {}
    for statement in module.body:
        if not isinstance(statement, (cst.ClassDef, cst.FunctionDef)):
            continue
        node = flow.seeded_function(statement)
        function = flow.functions.get(node) if node is not None else None
        if function is None:
            continue
        own = function.params[1:] if function.bound else function.params
        for param, kind, _default in own:
            if kind in ("pos", "kw") and flow._params.get((node, param)) in (None, df.UNKNOWN):
                candidates.setdefault(statement.name.value, {})[param] = (
                    df.TOP, frozenset({origin(statement.name.value, param)}))
    if not candidates:
        return {}
    probe = make_flow(candidates)
    reaching: dict[str, list] = {}  # origin -> the calls its parameter reaches
    for node in calls.found:
        origins = probe.value_of(node)[1]
        if len(origins) == 1 and df.is_adapted(next(iter(origins))):
            reaching.setdefault(next(iter(origins)), []).append(node)
    built_and_run: dict[str, dict[str, list]] = {}  # origin -> {"build": its nodes, "run": its nodes}
    for word, nodes in calls.built_and_run.items() if calls.built_and_run_tells() else ():
        for node in nodes:
            origins = probe.value_of(node)[1]
            if len(origins) == 1 and df.is_adapted(next(iter(origins))):
                built_and_run.setdefault(next(iter(origins)), {}).setdefault(word, []).append(node)
    for found_origin, by_word in built_and_run.items():
        if len(by_word) == len(BUILT_AND_RUN):  # both built and run: a pipeline
            reaching.setdefault(found_origin, []).extend(node for nodes in by_word.values() for node in nodes)
    chosen = {(name, param): (df.PIPELINE, found[1]) for name, params in candidates.items()
              for param, found in params.items() if next(iter(found[1])) in reaching}
    # One pipeline, or a list of them: whichever makes every call the parameter reaches a call on a pipeline (a
    # parameter for which neither does is left out, and the rest tried again).
    for _ in range(3):
        if not chosen:
            return {}
        trial = make_flow(_nested(chosen))
        wrong = {key for key, (kind, origins) in chosen.items()
                 if any(trial.value_of(node)[0] != df.PIPELINE for node in reaching[next(iter(origins))])}
        if not wrong:
            return _nested(chosen)
        for key in wrong:
            kind, origins = chosen[key]
            if kind == df.PIPELINE:
                chosen[key] = (("seq", df.PIPELINE), origins)
            else:
                del chosen[key]
    return {}


def _nested(chosen: dict) -> dict:
    nested: dict[str, dict] = {}
    for (name, param), found in chosen.items():
        nested.setdefault(name, {})[param] = found
    return nested


def adapt_statement(param: str, stream_class: str) -> cst.SimpleStatementLine:
    return stmt(f"{param} = {stream_class}.{ADAPT}({param})  # nvidia.dali Pipelines or migrated ones: one interface\n")


def adapted_here(function: cst.FunctionDef, stream_class: str) -> set[str]:
    """The parameters a function (migrated earlier) adapts in its first statements: ``x = ReaderStream.adapt(x)``."""
    found = set()
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    for line in body[:4]:
        if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(line.body[0], cst.Assign)):
            continue
        assign = line.body[0]
        call = assign.value
        if (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == ADAPT
                and isinstance(call.func.value, cst.Name) and call.func.value.value == stream_class
                and len(call.args) == 1 and isinstance(call.args[0].value, cst.Name)
                and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name)
                and assign.targets[0].target.value == call.args[0].value.value):
            found.add(call.args[0].value.value)
    return found
