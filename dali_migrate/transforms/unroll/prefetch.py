"""Prefetching for migrated pipelines: the next step loads while the caller works, as in pipeline mode.

Pipeline mode keeps computing up to ``prefetch_queue_depth`` (default 2) iterations while the training
loop uses the last one; a plain generator computes a step only when ``next()`` asks for it, so loading
and training take turns (issue 18 measured 0.54 of pipeline mode's speed with a 10 ms training step).

The migration therefore decorates each generator it writes with ``@Prefetch(depth=N)``, ``N`` the
pipeline's ``prefetch_queue_depth``. ``Prefetch`` (``dali_migrate/runtime/prefetch.py``, copied into the project's
helper module like the ``EpochIterator``; migrated code never imports dali_migrate) runs the whole generator in one background
thread, at most ``N - 1`` finished steps ahead of the caller, the reach pipeline mode has while the
caller holds a batch:

* every statement of the generator (thread-pool growth, ``set_seed``, reader creation, the loop) runs
  in that thread, in order, so the steps and their values are the ones the generator computes alone:
  ``ndd.random.set_seed`` seeds the calling thread's default RNG (DALI 2.4.0), the thread that draws;
* each step is evaluated before it is handed over, so no DALI work is pending in the thread when the
  program ends (a thread still inside DALI then aborts the interpreter, exit 134); errors surface where
  they would without the thread: an exception the generator raises at step k is raised by the ``next()``
  that asks for step k (and the generator is finished), an operator that failed raises when step k's
  output is read, and the next step still comes, as with pipe.run();
* ``close()``, dropping the generator or the end of the thread that iterates it stops the background
  thread after its current step, and the generator is closed in the thread that ran it (a suspended
  ``next_epoch`` keeps its EvalContext entered on that thread; docs/dali-facts.md), and so are the streams
  its steps read from the enclosing function (``endless(reader)`` over a reader made under a condition,
  another module's source helper): finalized later by another thread, they printed "Exception ignored ...
  cannot release un-acquired lock". Not when the steps merely end: a restart (``ReaderStream``) reads on;
* the current CUDA device of the caller is the device of the background thread (it is per thread).

Not decorated (``why_not`` says why): pipelines with checkpointing (a checkpoint collected by the
caller must describe the steps it has taken, not the ones loaded ahead), pipelines fed by
``external_source`` (the user's source would be called from another thread at other moments than
``pipe.run()`` called it), ``prefetch_queue_depth=1`` and ``exec_pipelined=False`` (no overlap in pipeline
mode either: the setup Python operators were written for, whose functions then run when the caller asks); nor
pipelines stepped only a few times, outside loops, every step where the module shows it (``stepped_once``: nothing
to overlap). A pipeline whose steps may leave the module (returned to, stored for, handed to or imported by code
the tool does not see) is stepped in a loop for all the tool knows, and keeps its prefetch.
"""

from __future__ import annotations

import libcst as cst

from ... import dataflow as df
from ...source import parse_expression
from ...walk import walk
from .helper_classes import PREFETCH
from .model import PipelineDesc, literal_value

CLASS_NAME = PREFETCH
DEFAULT_DEPTH = 2  # Pipeline(prefetch_queue_depth=2)



def depth(desc: PipelineDesc) -> int | None:
    """The pipeline's prefetch_queue_depth as a number; None when it is not a literal the migration can
    read (a dict of cpu/gpu sizes takes the CPU side, which is where the loop's steps are made)."""
    value = desc.config.get("prefetch_queue_depth")
    if value is None:
        return DEFAULT_DEPTH
    found = literal_value(value)
    if isinstance(found, dict):
        found = found.get("cpu_size")
    if isinstance(found, int) and not isinstance(found, bool) and found >= 1:
        return found
    return None


def ahead(desc: PipelineDesc) -> int | None:
    """How many steps a DALI iterator with size= had run the pipeline past the batch it gave (verified against
    the plugin, docs/dali-facts.md): its prefetch_queue_depth, the larger side of a cpu/gpu dict, 1 with
    exec_pipelined=False; None when that is not a literal the migration can read."""
    pipelined = literal_value(desc.config["exec_pipelined"]) if "exec_pipelined" in desc.config else True
    if pipelined is False:
        return 1
    value = desc.config.get("prefetch_queue_depth")
    found = DEFAULT_DEPTH if value is None else literal_value(value)
    if isinstance(value, cst.Dict):  # separated queues: {"cpu_size": c, "gpu_size": g}
        sizes = {literal_value(e.key): literal_value(e.value) for e in value.elements if isinstance(e, cst.DictElement)}
        if set(sizes) == {"cpu_size", "gpu_size"} and all(isinstance(v, int) for v in sizes.values()):
            found = max(sizes.values())
    if pipelined is not True or not isinstance(found, int) or isinstance(found, bool) or found < 1:
        return None
    return found


def why_not(desc: PipelineDesc) -> str | None:
    """Why this pipeline's generator is not prefetched, or None when it is."""
    if desc.extra.get("checkpoint") or desc.extra.get("checkpoint_unmigrated"):
        return "it checkpoints: a checkpoint taken between steps must not include steps loaded ahead"
    if desc.extra.get("iter_setup"):
        return ("iter_setup() feeds it: pipe.run() called it in the caller's thread; from another thread it would "
                "race with the caller's changes to the object")
    if desc.extra.get("external_sources"):
        return ("it is fed by external_source: the source would be called from another thread, at other moments "
                "than pipe.run() called it")
    if literal_value(desc.config.get("exec_pipelined")) is False:
        return "exec_pipelined=False: pipeline mode computed each step when run() asked for it, nothing ahead"
    found = depth(desc)
    if found is None:
        return "its prefetch_queue_depth is not a number the migration can read"
    if found <= 1:
        return "prefetch_queue_depth=1: pipeline mode did not load ahead either"
    return None


def _may_step(kind) -> bool:
    """A value through which a pipeline can be stepped: the pipeline, an iterator over it, a container or
    user object that may hold one, or something the model cannot see into. Outputs and graph values step
    nothing."""
    if kind in (df.PIPELINE, df.DALI_ITERATOR, df.TOP):
        return True
    if isinstance(kind, tuple) and kind and kind[0] in ("seq", "gen", "stream", "map"):
        return _may_step(kind[1])
    return isinstance(kind, tuple) and kind and kind[0] == "instance"


def _steps_through(kind) -> bool:
    """``_may_step``, known: not a value the model cannot see into (a name bound to a graph value and to a step's
    outputs, say), which would make every call it meets look like a hand-over."""
    if isinstance(kind, tuple) and kind and kind[0] in ("seq", "gen", "stream", "map"):
        return _steps_through(kind[1])
    return kind != df.TOP and _may_step(kind)


def stepped_once(flow: "df.DataFlow", module: cst.Module, exported: bool = False) -> frozenset:
    """The pipelines (origins) that are stepped a few times, every step where this module shows it and none of
    them in a loop: every use of the pipeline is outside loops and comprehensions, in top-level code or in
    functions that are themselves called only that way (a notebook's ``show(pipe)`` helper, ``p = pipe();
    p.build(); out = p.run()``). There is nothing to overlap loading with, so the generator needs no ``Prefetch``.

    A pipeline keeps the prefetch when its steps may be taken where the tool does not look, in a loop for all
    it knows (a training loop in another file, slowed down with no warning otherwise): one used in a loop, in
    a class, in a function called from a loop, from elsewhere (escaping) or from nowhere here (another module
    may call it); one that a value steps through (the pipeline, its iterator, a container holding them) is
    passed to a call the model does not follow (a trainer, another module's function) or stored on an object
    the model does not know; one kept in a name of the module's top level, or used in one of its top-level
    functions, when another module of the run imports this one (``exported``: ``from data import train_loader``,
    ``make_loader(root)`` called there); and one never stepped here at all (made, built, wrapped in a
    ``DALIGenericIterator``: its steps are taken elsewhere). Issue 35: a module-level loader whose training loop
    lives in another file had lost its prefetch, and that loop slowed down with no warning."""
    uses = _Uses(flow, flow.dali_names(), exported)
    walk(module, uses)
    repeating = _repeating_functions(flow, uses.calls, exported)
    used, repeated = set(), set()
    for origins, function, looped in uses.found:
        used |= origins
        if looped or (function is not None and function in repeating):
            repeated |= origins
    return frozenset((used & uses.stepped) - repeated - uses.escaped)


def _repeating_functions(flow, calls: list, exported: bool = False) -> set:
    """Functions (nodes) that may run many times: methods, lambdas, functions that escape or that this
    module never calls, the top-level functions of a module that another module imports (``exported``: its
    factories may be called there, in a loop), and, to a fixpoint, those called in a loop or from a repeating
    function."""
    called: dict = {}
    for call, function, looped in calls:
        reached = flow.call_targets.get(call)
        if reached is not None:
            called.setdefault(reached[0].node, []).append((function, looped))
    repeating = {node for node, f in flow.functions.items()
                 if f.escapes or f.class_node is not None or isinstance(node, cst.Lambda) or node not in called
                 or exported and node in flow.module_scope_functions}
    changed = True
    while changed:
        changed = False
        for node, sites in called.items():
            if node not in repeating and any(looped or caller in repeating for caller, looped in sites):
                repeating.add(node)
                changed = True
    return repeating


# Methods and builtins through which a value takes a step of its pipeline where this module shows it: run() and
# its kin, an iterator's next; next(it), iter(it) and what iterates (a loop counts as one too).
_STEP_METHODS = df.RUN_METHODS | {"next", "__next__", "__iter__"}
_STEP_BUILTINS = {"next", "iter", "enumerate", "zip", "list", "tuple", "sorted", "reversed"}
# Builtins that take a value without stepping it or handing it on (``len(loader)``, ``print(it)``).
_LOOKING_BUILTINS = {"len", "print", "isinstance", "id", "repr", "str", "type", "hasattr", "getattr", "vars"}
# Methods of a container the model follows (``loaders.append(it)``): the container is a use of its own.
_STORING_METHODS = {"append", "extend", "insert", "add", "update", "setdefault"}


class _Uses(cst.CSTVisitor):
    """Each use of a pipeline value and each call, with its innermost function and whether it sits in a
    loop or comprehension inside that function (or in a class body); the origins stepped where this module
    shows it (``stepped``), and those whose steps leave it (``escaped``, see ``stepped_once``)."""

    def __init__(self, flow, names: set[str], exported: bool = False):
        super().__init__()
        self.flow, self.names, self.exported = flow, names, exported
        self.stack: list[list] = [[None, 0]]  # [function node, loops open inside it]
        self.found: list[tuple[frozenset, object, bool]] = []
        self.calls: list[tuple[cst.Call, object, bool]] = []
        self.stepped: set = set()
        self.escaped: set = set()

    def _stepping(self, expr) -> frozenset:
        """The origins of ``expr`` when it holds a value that steps a pipeline (a name of one; a list of them)."""
        if isinstance(expr, (cst.List, cst.Tuple)):
            return frozenset().union(*(self._stepping(e.value) for e in expr.elements
                                       if isinstance(e, cst.Element)))
        named = expr.value if isinstance(expr, cst.Name) else expr.attr.value if isinstance(expr, cst.Attribute) \
            else None
        if named not in self.names:
            return frozenset()
        kind, origins = self.flow.value_of(expr)
        return origins if origins and _steps_through(kind) else frozenset()

    def _call(self, node: cst.Call) -> None:
        """A step taken (``pipe.run()``, ``next(it)``) or a value handed to code the model does not follow."""
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _STEP_METHODS:
            self.stepped |= self._stepping(func.value)
        arguments = [found for arg in node.args if (found := self._stepping(arg.value))]
        if not arguments:
            return
        handed = frozenset().union(*arguments)
        if isinstance(func, cst.Name) and self.flow.is_builtin(func):
            if func.value in _STEP_BUILTINS:
                self.stepped |= handed
            elif func.value not in _LOOKING_BUILTINS:
                self.escaped |= handed
            return
        qualname = self.flow.imports.qualname(func)
        if qualname is not None and qualname.startswith("nvidia.dali."):
            return  # DALI's own API (an iterator over the pipelines): the model follows what it makes
        reached = self.flow.call_targets.get(node)
        if reached is not None and not reached[0].escapes and not any(a.star for a in node.args):
            return  # a function or class of this module: its own uses of the value are counted where they are
        if self.flow.builds_pipeline_here(node):
            return
        if isinstance(func, cst.Attribute):
            owner = self.flow.value_of(func.value)[0]
            if owner in (df.PIPELINE, df.DALI_ITERATOR):
                return  # the pipeline's own API (set_outputs, feed_input)
            if isinstance(owner, tuple) and owner[0] in ("seq", "map") and func.attr.value in _STORING_METHODS:
                return  # stored in a container the model follows
        self.escaped |= handed  # a trainer, another module's function, a library: it may step it in a loop

    def _stored(self, node: cst.Assign) -> None:
        """A pipeline value stored on an object the model does not know (``trainer.loader = loader``)."""
        stored = self._stepping(node.value)
        if not stored:
            return
        for target in node.targets:
            if isinstance(target.target, cst.Attribute):
                owner = self.flow.value_of(target.target.value)[0]
                if not (isinstance(owner, tuple) and owner[0] == "instance"):
                    self.escaped |= stored

    def on_visit(self, node) -> bool:
        role = _ROLES.get(type(node)) or _role(type(node))
        if role is _OTHER:
            if isinstance(node, cst.CompFor):
                self.stepped |= self._stepping(node.iter)
            elif isinstance(node, cst.Assign):
                self._stored(node)
            return True
        if role is _DEF and getattr(self.flow.functions.get(node), "pipeline", None):
            return False  # a @pipeline_def's own body defines the graph; it steps nothing
        if role is _DEF or role is _LAMBDA:
            self.stack.append([node, 0])
        elif role is _LOOP:
            self.stack[-1][1] += 1
            if isinstance(node, cst.For):
                self.stepped |= self._stepping(node.iter)
        elif role is _CALL:
            self.calls.append((node, self.stack[-1][0], self.stack[-1][1] > 0))
            self._call(node)
        elif role is _NAME and node.value in self.names:
            kind, origins = self.flow.value_of(node)
            if origins and _may_step(kind):
                self.found.append((origins, self.stack[-1][0], self.stack[-1][1] > 0))
                if self.exported and self.flow.binding_scope(node) is self.flow.module_scope:
                    self.escaped |= origins  # a name of the top level: the modules importing this one may step it
        return True

    def on_leave(self, node) -> None:
        role = _ROLES.get(type(node)) or _role(type(node))
        if (role is _DEF or role is _LAMBDA) and self.stack[-1][0] is node:
            self.stack.pop()
        elif role is _LOOP:
            self.stack[-1][1] -= 1


# What a node is to ``_Uses``, by type (``isinstance`` against libcst's node classes is slow, and asked of every node).
_DEF, _LAMBDA, _LOOP, _CALL, _NAME, _OTHER = "def", "lambda", "loop", "call", "name", "other"
_ROLES: dict[type, str] = {}


def _role(node_type: type) -> str:
    role = _DEF if issubclass(node_type, cst.FunctionDef) else _LAMBDA if issubclass(node_type, cst.Lambda) else \
        _LOOP if issubclass(node_type, _LOOPS) else _CALL if issubclass(node_type, cst.Call) else \
        _NAME if issubclass(node_type, cst.Name) else _OTHER
    _ROLES[node_type] = role
    return role


# A class body counts as a loop: its methods may run any number of times, and so may what it holds.
_LOOPS = (cst.ClassDef, cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def decorator(desc: PipelineDesc) -> cst.Decorator:
    """``@Prefetch(depth=N)`` for the generator of ``desc`` (one that ``why_not`` lets load ahead)."""
    return cst.Decorator(decorator=parse_expression(f"{CLASS_NAME}(depth={depth(desc)})"))
