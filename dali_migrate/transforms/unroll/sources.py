"""``fn.external_source`` inside a pipeline -> the source iterated (or called) by the generator itself.

Pipeline mode decides at run time what ``source`` is (``nvidia/dali/_utils/external_source_impl.py``
``get_callback_from_source``): a generator function (called, then iterated), an iterable (``iter()``), or
a callable (called once per step). Each item is one batch: a list of samples, an array whose first
dimension is the batch, or a TensorList. ndd.ExternalSource shares that dispatch but turns a returned
Python list into one Tensor (ndd-facts §6.1): ``ndd.as_batch`` of the item is the pipeline reading.

What the source is, is decided here from the module's text:

* a generator function or an iterable, the only input of a reader-less pipeline: the generator loops
  over it (``for data in gen():`` ... ``data = ndd.as_batch(data)``); ``cycle=True/"quiet"`` adds
  ``while True`` around (a new ``gen()`` / ``iter()`` per pass, as pipeline mode does);
* otherwise one pull per step, created once before the loop (``source = gen()`` / ``iter(x)`` /
  the callable) and ``try: data = next(source) except StopIteration: return``: an exhausted source
  ends the generator, as pipe.run() raised StopIteration from then on (VERIFIED, docs/dali-facts.md); with
  ``cycle=True``/``"quiet"`` the source is read again from its start there instead (a generator function called
  again, ``iter()`` again), as pipeline mode's ``_CycleGenFunc``/``_CycleIter`` did;
* a source whose kind the text does not show (a parameter, an attribute, a call result): the generator
  decides at run time as pipeline mode does (``get_callback_from_source``, ``accepted_arg_count``): a
  generator function is called, an iterable iterated, a callable called, with its position when it takes
  a parameter (with any ``cycle``: iterated, a generator function called again at each end). Each item goes
  through ``ndd.as_batch``, so a list of differently shaped samples is a batch, as in pipeline mode
  (``ndd.ExternalSource`` would stack it into one array and fail).

Sources that pipeline mode calls with their position are called the same way, counting as DALI does
(``_ExternalSourceGroup.callback_args``; VERIFIED, docs/dali-facts.md): a per-sample source
(``batch=False``) is called ``batch_size`` times a step, a one-argument callable with
``SampleInfo(step * batch_size + i, i, step, 0)``, and ``num_outputs`` splits the samples' tuples into one
batch per output; a generator or iterable gives one sample per item. A StopIteration from any sample
drops the partial batch and ends the generator. With ``batch=True`` a one-argument callable gets
``BatchInfo(step, 0)`` (``batch_info=True``) or the step number. ``parallel=True`` (and the
pipeline's ``py_num_workers``/``py_start_method``) runs the source in the generator's thread: reported,
since the values equal the workers' only for a stateless source, which DALI asks for.

Epochs (VERIFIED, docs/dali-facts.md "Epochs an external source ends"): pipeline mode calls ``iter(source)``
(or the generator function) once, when the pipeline is defined, and each epoch pulls that one iterator until
it raises StopIteration; ``cycle="raise"`` calls ``iter()`` again (or the generator function) at that moment.
pipe.reset() after the end starts the next epoch. A reader-less pipeline whose source can end, which the
module resets (pipe.reset(), a PyTorch iterator over it) or whose source has ``cycle="raise"``, is written as
a ReaderStream with ``restart``: the source's iterator is made once (``once_statements``), the steps of one
epoch pull it (``pull_statements(epochs=True)``, the position counters start again, ``epoch_idx`` is the
epoch's index) and a ``cycle="raise"`` source is rebound (``nonlocal``) to a new iterator where it ends.

Marked, pipeline left as it is: ``repeat_last=True``, ``cycle="raise"`` next to a reader (pipe.reset()
restarts the source, not the reader's epoch) or in a Pipeline subclass, ``parallel=True`` over a generator or
iterable, no ``source`` (fed by feed_input), and an external_source call nested in an expression that pipeline
mode may not have evaluated (a conditional expression, ``and``/``or``, a lambda or a comprehension) or inside a
block. One nested in a plain expression (``fn.decoders.image(fn.external_source(...))``, ``return
fn.external_source(...) * 3``, ``pipe.set_outputs(fn.external_source(...))``) is first read into a name of its own
before its statement (``hoist_nested``): pipeline mode made the one source node either way.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ...names import free_name
from ...walk import transform, walk
from . import rules
from .model import CannotUnroll, code_of, expr, fn_path, kwarg, ops_path, literal_value, stmt

# external_source(source=None, num_outputs=None, *, cycle=None, name=None, device="cpu", layout=None, dtype=None, ...)
POSITIONAL = ("source", "num_outputs")
TO_AS_BATCH = ("layout", "dtype", "device")
DROPPED = ("name", "ndim", "no_copy", "prefetch_queue_depth", "use_copy_kernel", "cuda_stream", "blocking")
ITERABLE_LITERALS = (cst.List, cst.Tuple, cst.ListComp)


class SourceError(CannotUnroll):
    rule = rules.EXTERNAL_SOURCE_MANUAL.id


@dataclass
class SourceSpec:
    var: str  # the name of the pulled object before the loop ("source", "source_2")
    kind: str  # "generator" | "iterable" | "callable" | "runtime" (decided when the generator runs)
    source: cst.BaseExpression
    target: cst.BaseAssignTargetExpression
    call: cst.Call
    cycle: object  # literal value of cycle=: None/False/"no", True/"quiet"
    multi: bool  # num_outputs given (the target receives a sequence of batches)
    batch_args: list[cst.Arg] = field(default_factory=list)
    statement: cst.CSTNode | None = None
    per_sample: bool = False  # batch=False: each call (or item) is one sample, batch_size of them a batch
    argument: str | None = None  # what a callable is called with: "sample_info" | "batch_info" | "iteration"

    @property
    def cycles(self) -> bool:
        return self.cycle is True or self.cycle == "quiet"

    @property
    def rereads(self) -> bool:
        """The source is read again from its start when it ends (cycle=True/"quiet"/"raise")."""
        return self.cycles or self.raises

    @property
    def raises(self) -> bool:
        """cycle="raise": StopIteration ends the epoch, and the source is read again from its start (pipeline
        mode's _CycleIter calls iter() on it, or the generator function again, when it raises)."""
        return self.cycle == "raise"


def is_external_source(imports, call: cst.Call) -> bool:
    """fn.external_source(...); also ops.ExternalSource(source=...), which a migrated Pipeline class calls in its
    steps for an ops object of its own (class_sources._source_in_graph): the same arguments."""
    return fn_path(imports, call.func) == "external_source" or (
        ops_path(imports, call.func) == "ExternalSource" and kwarg(call, "source") is not None)


_SOURCE_NAMES = frozenset({"external_source", "ExternalSource"})


def external_source_statement(statement, imports):
    """(target, call) for ``target = fn.external_source(...)``, else None."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.value, cst.Call) \
            and is_external_source(imports, small.value):
        return small.targets[0].target, small.value
    return None


class _NestedSourceCalls(cst.CSTTransformer):
    """Replaces each single-output external_source call nested in a plain expression (not under a condition, a
    lambda or a comprehension) with a fresh name, and lists (name, call) in ``hoisted``."""

    _CONDITIONAL = (cst.IfExp, cst.BooleanOperation, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp,
                    cst.GeneratorExp)

    def __init__(self, imports, taken: set[str]):
        self.imports, self.taken = imports, taken
        self.hoisted: list[tuple[str, cst.Call]] = []
        self._conditional = 0

    def on_visit(self, node):
        self._conditional += isinstance(node, self._CONDITIONAL)
        return super().on_visit(node)

    def on_leave(self, original_node, updated_node):
        self._conditional -= isinstance(original_node, self._CONDITIONAL)
        if isinstance(original_node, cst.Call) and not self._conditional and is_external_source(
                self.imports, original_node) and kwarg(original_node, "num_outputs") is None and not any(
                a.star for a in original_node.args):
            name = free_name("source_data", self.taken)
            self.taken.add(name)
            self.hoisted.append((name, updated_node))
            return cst.Name(name)
        return super().on_leave(original_node, updated_node)


def hoist_nested(imports, statements: list, outputs: list, taken: set[str], report=None,
                 may_mention=None) -> tuple[list, list]:
    """(statements, outputs) with each external_source call nested in a plain expression of a top-level
    statement or of an output read first into a name of its own, in a statement just before (``data =
    fn.external_source(...)``, which the passes migrate). ``taken``: the names the pipeline already uses.
    ``may_mention(node, words)`` (``MigrationContext.may_mention``): False where the node's text has none of the
    words (a statement that names no external source has none to hoist: not walked)."""
    new_statements, hoisted_any = [], False
    # A call is_external_source resolves ends in one of these names, or is a name imported as one of them.
    words = _SOURCE_NAMES | {local for local, target in imports.aliases.items()
                             if target.rpartition(".")[2] in _SOURCE_NAMES}

    def hoisted(node, before):
        nonlocal hoisted_any
        if may_mention is not None and not may_mention(node, words):
            return node
        found = _NestedSourceCalls(imports, taken)
        node = transform(node, found, layout=False)
        for name, call in found.hoisted:
            hoisted_any = True
            before.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], call)]))
            if report is not None:
                report(rules.EXTERNAL_SOURCE.id, f"external_source inside an expression: read into {name} "
                       f"before its statement, where the passes migrate it", call)
        return node

    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and \
                external_source_statement(statement, imports) is None:
            statement = hoisted(statement, new_statements)
        new_statements.append(statement)
    new_outputs = []
    for output in outputs:
        new_outputs.append(hoisted(output, new_statements))
    if not hoisted_any:
        return statements, outputs
    return new_statements, new_outputs


def _arg(call: cst.Call, name: str):
    value = kwarg(call, name)
    if value is not None:
        return value
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if name in POSITIONAL and POSITIONAL.index(name) < len(positional):
        return positional[POSITIONAL.index(name)].value
    return None


def _truthy_or_unknown(value) -> bool:
    if value is None:
        return False
    v = literal_value(value)
    return v is not False and v is not None


def _has_yield(node: cst.FunctionDef) -> bool:
    finder = _YieldFinder(node)
    walk(node, finder)
    return finder.found


class _YieldFinder(cst.CSTVisitor):
    """A yield of ``function`` itself (module level: a class made per call would keep the tree in a cycle)."""

    def __init__(self, function: cst.FunctionDef):
        super().__init__()
        self.function = function
        self.found = False

    def visit_Yield(self, n):
        self.found = True

    def visit_FunctionDef(self, n):
        return n is self.function  # nested functions have their own yields

    def visit_Lambda(self, n):
        return False


def _param_count(params: cst.Parameters) -> int:
    return len(params.posonly_params) + len(params.params) + len(params.kwonly_params) + \
        (1 if isinstance(params.star_arg, cst.Param) else 0) + (1 if params.star_kwarg else 0)


def _instance_kind(source: cst.Name, found, symbols: dict, flow) -> str | None:
    """``source`` holds an instance of one of the module's classes: "iterable" when the class has
    ``__iter__`` (DALI tries iter(source) first: nvidia/dali/external_source.py, get_callback_from_source),
    else "callable" when it has ``__call__``; None otherwise. The
    class comes from the flow model, or, for code the migration does not parse (elided), from the
    module's symbols (``name = Class(...)``)."""
    methods = None
    value = flow.value_of(source) if flow is not None and source in flow.name_scope else None
    if value is not None and isinstance(value[0], tuple) and value[0][0] == "instance":
        class_node = value[0][1]
        methods = {name: flow.method_of(class_node, name) for name in ("__call__", "__iter__")}
        found = None
    elif found is None and value is not None:  # a local name: what its one binding makes (a class elision left out
        found = flow.single_value(source)      # is not known to the model, only to the module's symbols)
    if isinstance(found, cst.Call) and isinstance(found.func, cst.Name):
        class_node = symbols.get(found.func.value)
        if isinstance(class_node, cst.ClassDef) and not class_node.bases:
            defined = {s.name.value: s for s in class_node.body.body if isinstance(s, cst.FunctionDef)}
            methods = {name: defined.get(name) for name in ("__call__", "__iter__")}
    if methods is None:
        return None
    if methods["__iter__"] is not None:
        return "iterable"  # DALI tries iter(source) first, and calls it only when that fails
    call = methods["__call__"]
    if isinstance(call, cst.FunctionDef):
        return "callable_arg" if _param_count(call.params) > 1 else "callable"
    return None


def source_kind(source: cst.BaseExpression, symbols: dict, local_names: set[str], flow=None) -> str:
    """What the text shows ``source`` to be: "generator", "iterable", "iterator", "callable" (no argument),
    "callable_arg" (called with one: SampleInfo, BatchInfo or the iteration number) or "unknown"."""
    if isinstance(source, cst.Lambda):
        return "callable_arg" if _param_count(source.params) else "callable"
    if isinstance(source, ITERABLE_LITERALS):
        return "iterable"
    if isinstance(source, cst.GeneratorExp):
        return "iterator"
    if isinstance(source, cst.Name) and source.value not in local_names:
        found = symbols.get(source.value)
        if isinstance(found, cst.FunctionDef):
            if _has_yield(found):
                return "generator"
            return "callable_arg" if _param_count(found.params) else "callable"
        if isinstance(found, ITERABLE_LITERALS):
            return "iterable"
        if isinstance(found, cst.GeneratorExp):
            return "iterator"
        instance = _instance_kind(source, found, symbols, flow)
        if instance is not None:
            return instance
    return "unknown"


def describe_source(target, call: cst.Call, statement, index: int, symbols: dict, local_names: set[str],
                    report, flow=None) -> SourceSpec:
    if any(a.star for a in call.args):
        raise SourceError("external_source called with *args/**kwargs: its options are not known")
    source = _arg(call, "source")
    if source is None:
        raise SourceError("external_source without source= is fed by feed_input; pass the data to the ndd ops "
                          "instead")
    batch = kwarg(call, "batch")
    per_sample = batch is not None and literal_value(batch) is False
    if batch is not None and not per_sample and literal_value(batch) is not True:
        raise SourceError(f"batch={code_of(batch)}: whether the source gives samples or batches is not known")
    batch_info = kwarg(call, "batch_info")
    if batch_info is not None and literal_value(batch_info) not in (True, False, None):
        raise SourceError(f"batch_info={code_of(batch_info)}: what the source is called with is not known")
    if _truthy_or_unknown(kwarg(call, "repeat_last")):
        raise SourceError("repeat_last=True repeats the last fed batch; ndd has no counterpart")
    parallel = kwarg(call, "parallel")
    if parallel is not None and literal_value(parallel) not in (True, False, None):
        raise SourceError(f"parallel={code_of(parallel)}: whether the source runs in worker processes is not known")
    cycle_node = kwarg(call, "cycle")
    cycle = literal_value(cycle_node) if cycle_node is not None else None
    if cycle_node is not None and cycle not in (None, False, True, "no", "quiet", "raise"):
        raise SourceError(f"cycle={code_of(cycle_node)}: whether pipeline mode cycles the source is not known here")
    kind = source_kind(source, symbols, local_names, flow)
    if kind == "iterator" and (cycle is True or cycle in ("quiet", "raise")):
        raise SourceError("cycle over a generator expression: pipeline mode rejects it (TypeError)")
    if kind == "iterator":
        kind = "iterable"
    if kind in ("callable", "callable_arg") and (cycle is True or cycle in ("quiet", "raise")):
        raise SourceError("cycle with a callable source: pipeline mode rejects it (ValueError)")
    cycled = cycle is True or cycle in ("quiet", "raise")
    if kind == "unknown" and per_sample and cycled:
        raise SourceError(f"a per-sample source (batch=False) with cycle= whose kind source={code_of(source)} "
                          f"does not show here")
    if kind == "unknown":
        kind = "runtime"  # the generator decides, as pipeline mode did: iterated, or called (with its position)
    if literal_value(parallel) is True and kind not in ("callable", "callable_arg", "runtime"):
        raise SourceError("parallel=True over a generator or iterable: pipeline mode runs it in one worker "
                          "process ahead of the pipeline; not migrated")
    argument = None
    # what a callable is called with (runtime: should it take a parameter); a cycled source is only iterated
    if kind == "callable_arg" or kind == "runtime" and not cycled:
        kind = "callable" if kind == "callable_arg" else kind
        argument = "sample_info" if per_sample else "batch_info" if literal_value(batch_info) is True else "iteration"
    num_outputs = _arg(call, "num_outputs")
    multi = num_outputs is not None and literal_value(num_outputs) is not None
    if isinstance(target, (cst.Tuple, cst.List)) and any(isinstance(e, cst.StarredElement) for e in target.elements):
        raise SourceError("a starred target for external_source outputs")
    batch_args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in call.args
                  if a.keyword is not None and a.keyword.value in TO_AS_BATCH]
    for a in call.args:
        if a.keyword is not None and a.keyword.value in DROPPED:
            report(rules.EXTERNAL_SOURCE.id, f"external_source {a.keyword.value}={code_of(a.value)} has no "
                   f"dynamic-mode counterpart and is dropped", statement)
    if kwarg(call, "dtype") is not None:
        report(rules.EXTERNAL_SOURCE.id, "external_source dtype= checked the data type in pipeline mode (an error "
               "on a mismatch); ndd.as_batch(dtype=) converts to it", statement)
    var = "source" if index == 1 else f"source_{index}"
    if literal_value(parallel) is True:
        report(rules.EXTERNAL_SOURCE.id, "external_source parallel=True: the source now runs in the generator's "
               "own thread, not in py_num_workers worker processes; DALI asks a parallel source to be stateless, "
               "and for such a source the values are the same (a source that keeps state between calls gave "
               "results that depended on which worker ran each call)", statement)
    return SourceSpec(var=var, kind=kind, source=source, target=target, call=call, cycle=cycle, multi=multi,
                      batch_args=batch_args, statement=statement, per_sample=per_sample, argument=argument)


def _as_batch(value: cst.BaseExpression, spec: SourceSpec, index: int | None = None) -> cst.Call:
    """``ndd.as_batch(value, dtype=..., layout=...)``; with num_outputs, a list of dtypes or layouts gives the
    ``index``-th output its own, as pipeline mode did."""
    args = [cst.Arg(value)] + [_per_output(a, index) for a in spec.batch_args]
    return cst.Call(func=expr("ndd.as_batch"), args=[
        a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) if i < len(args) - 1
        else a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for i, a in enumerate(args)])


def _per_output(arg: cst.Arg, index: int | None) -> cst.Arg:
    value = arg.value
    if index is not None and isinstance(value, (cst.List, cst.Tuple)) and index < len(value.elements) \
            and not any(isinstance(e, cst.StarredElement) for e in value.elements):
        return arg.with_changes(value=value.elements[index].value)
    return arg


def as_batch_statements(spec: SourceSpec) -> list[cst.BaseStatement]:
    """``data = ndd.as_batch(data)`` for each output the target names."""
    target = spec.target
    if isinstance(target, (cst.Tuple, cst.List)):
        names = [e.value for e in target.elements]
    elif spec.multi:
        text = code_of(target)
        batch = code_of(_as_batch(cst.Name("output"), spec))
        return [stmt(f"{text} = tuple({batch} for output in {text})\n")]
    else:
        names = [target]
    return [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(n)], _as_batch(
        n, spec, i if spec.multi else None))]) for i, n in enumerate(names)]


def loop_iterable(spec: SourceSpec) -> cst.BaseExpression:
    """What a reader-less pipeline's generator loops over: ``gen()`` or the iterable itself."""
    if spec.kind == "generator":
        return cst.Call(func=spec.source)
    return spec.source


def can_loop(spec: SourceSpec) -> bool:
    return spec.kind in ("generator", "iterable") and not spec.per_sample


INFO_CLASS = {"sample_info": "SampleInfo", "batch_info": "BatchInfo"}


def setup_statements(spec: SourceSpec) -> list[cst.BaseStatement]:
    """What is created once before the loop for the pull form: the pulled object, and for a source called
    with its position the step counter (and the nvidia.dali.types class it is called with)."""
    return once_statements(spec) + counter_statements(spec)


def counter_statements(spec: SourceSpec) -> list[cst.BaseStatement]:
    """The step counter of a source called with its position: it starts again with each epoch."""
    if spec.argument is not None:
        return [stmt(f"{spec.var}_step = 0  # the iteration in the epoch, as pipeline mode counted it\n")]
    return []


def rebound(spec: SourceSpec) -> str | None:
    """The name a cycle="raise" source rebinds when it ends an epoch (the steps declare it nonlocal)."""
    if not spec.raises:
        return None
    return f"{spec.var}_next" if spec.kind == "runtime" else spec.var


def _restart_statement(spec: SourceSpec) -> str:
    """cycle="raise": the source read again from its start, as pipeline mode's _CycleIter did at once."""
    if spec.kind == "runtime":
        return f"{spec.var}_next = iter({spec.var}_again()).__next__"
    if spec.kind == "generator":
        return f"{spec.var} = {code_of(spec.source)}()"
    return f"{spec.var} = iter({code_of(spec.source)})"


def once_statements(spec: SourceSpec) -> list[cst.BaseStatement]:
    """What pipeline mode created from the source when the pipeline was defined: the pulled object (a "runtime"
    source uses ``inspect``, which ``graph._source_setup`` imports)."""
    found = []
    if spec.kind == "generator":
        found.append(stmt(f"{spec.var} = {code_of(spec.source)}()\n"))
    elif spec.kind == "iterable":
        found.append(stmt(f"{spec.var} = iter({code_of(spec.source)})\n"))
    elif spec.kind == "callable":
        if not isinstance(spec.source, cst.Name):  # a name is called by name in each step
            found.append(stmt(f"{spec.var} = {code_of(spec.source)}\n"))
    elif spec.rereads:  # "runtime", cycled: a generator function called again, or the iterable iterated again
        found += [stmt(f"{spec.var} = {code_of(spec.source)}\n"),
                  stmt(f"{spec.var}_again = {spec.var} if inspect.isgeneratorfunction({spec.var}) else lambda: {spec.var}\n"),
                  stmt(f"{spec.var}_next = iter({spec.var}_again()).__next__\n")]
    else:  # "runtime": pipeline mode's dispatch (get_callback_from_source, accepted_arg_count)
        found += [stmt(f"{spec.var} = {code_of(spec.source)}\n"),
                  stmt(f"{spec.var} = {spec.var}() if inspect.isgeneratorfunction({spec.var}) else {spec.var}\n"),
                  stmt(f"{spec.var}_next = iter({spec.var}).__next__ if hasattr({spec.var}, '__iter__') else None\n"),
                  stmt(f"{spec.var}_takes_info = {spec.var}_next is None and "
                       f"len(inspect.signature({spec.var}).parameters) > 0\n")]
    return found


def _one_call(spec: SourceSpec, batch_size: str, epoch: str = "0") -> str:
    """One call of the source (one sample when per-sample, ``i`` its index in the batch)."""
    if spec.kind in ("generator", "iterable"):
        return f"next({spec.var})"
    if spec.kind == "runtime" and spec.rereads:
        return f"{spec.var}_next()"
    function = spec.source.value if spec.kind == "callable" and isinstance(spec.source, cst.Name) else spec.var
    step = f"{spec.var}_step"
    argument = {None: "",
                "iteration": step,
                "batch_info": f"BatchInfo({step}, {epoch})",
                # SampleInfo(idx_in_epoch, idx_in_batch, iteration, epoch_idx); epoch_idx is 0 unless the steps
                # restart on reset() (epochs): a plain generator ends with the epoch, as the pipeline's first did
                "sample_info": f"SampleInfo({step} * {batch_size} + i, i, {step}, {epoch})"}[spec.argument]
    if spec.kind == "runtime":
        return f"{spec.var}_next() if {spec.var}_next else {function}({argument}) if {spec.var}_takes_info else {function}()"
    return f"{function}({argument})"


def pull_statements(spec: SourceSpec, batch_size: str = "batch_size", epochs: bool = False) -> list[cst.BaseStatement]:
    """One step's pull: the data, StopIteration ending the generator, then the batches. A per-sample
    source is called batch_size times; a StopIteration from any sample drops the partial batch and ends
    the epoch, as pipeline mode did (VERIFIED, docs/dali-facts.md). ``epochs``: the steps of one epoch,
    restarted by the ReaderStream's reset() with ``epoch_idx``."""
    pull = _one_call(spec, batch_size, "epoch_idx" if epochs else "0")
    if spec.per_sample:
        pull = f"[{pull} for i in range({batch_size})]"
        if spec.multi:  # each sample is a tuple of outputs: one batch per output
            pull = f"[list(output) for output in zip(*{pull})]"
    target = code_of(spec.target)
    if spec.cycles:  # (pipeline mode's _CycleIter/_CycleGenFunc): a generator function called again, iter() again
        cycle = code_of(kwarg(spec.call, "cycle"))
        first = [stmt(f"try:\n    {target} = {pull}\nexcept StopIteration:  # cycle={cycle}: read again from the "
                      f"start at once, as pipeline mode did\n    {_restart_statement(spec)}\n    {target} = {pull}\n")]
    else:
        again = f"    {_restart_statement(spec)}  # cycle=\"raise\": read from the start in the next epoch\n" \
            if spec.raises else ""
        end = "the epoch ends: pipe.run() raised StopIteration until pipe.reset()" if epochs else \
            "the source is exhausted: pipe.run() raised StopIteration from here on"
        first = [stmt(f"try:\n    {target} = {pull}\nexcept StopIteration:\n{again}    return  # {end}\n")]
    if spec.argument is not None:
        first.append(stmt(f"{spec.var}_step += 1\n"))
    return first + as_batch_statements(spec)
