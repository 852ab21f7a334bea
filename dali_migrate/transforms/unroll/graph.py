"""Reading a pipeline's body into the pieces of a dynamic-mode loop (``PipelineDesc``).

``build_graph`` splits a pipeline body into readers (created once), statements that run once
before the loop, and the statements of one step; each statement it keeps goes through the call rewrites
of ``step_calls.py`` (``batch_size=`` on input-less random and transform ops, per-op ``seed=`` into ``rng=``),
and shuffling readers get a ``seed=``. It owns what the body's readers, external sources and source helpers
become, readers and sources under a build-time ``if`` (``conditional.py``), the names the steps change, and
each step starting from a value bound outside it. ``statement_facts.py`` says what each statement holds,
``outputs.py`` how the body gives its outputs, and ``generator_code.py`` writes the loop every style shares.
"""

from __future__ import annotations

import re

import libcst as cst

from ...walk import transform, walk
from ...names import free_name
from ..imports import request_import
from . import checkpoints, conditional, graph_functions, python_functions, rules, sources
from .model import (AssignedNames, CannotUnroll, ChangedNames, NameReads, PipelineDesc, ReaderSpec, code_of, expr,
                    fn_path, kwarg, literal_value, ndd_attr, ndd_path_of, ndd_entry, op_entry, stmt, with_kwarg,
                    target_names, without_kwargs)
from .step_calls import Env, _RandomFixer
from .statement_facts import _ContainsCall, _NestedSources, _StatementFacts, _reads_and_binds
from .outputs import returned_kinds
from .generator_code import _target, endless_function

READER_DROPPED = ("bytes_per_sample_hint", "preserve")
DICT_READERS = {"readers.tfrecord", "readers.webdataset"}


def _reader_statement(statement, imports):
    """(targets, call, fn path, entry, copied) when the statement is ``targets = <reader call>``, or
    ``target = <reader call>.gpu()``: a single-output reader whose output is copied to the GPU (``copied``
    is then ``"gpu"``, the step starts with ``target = target.gpu()``)."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if not isinstance(small, cst.Assign) or len(small.targets) != 1 or not isinstance(small.value, cst.Call):
        return None
    call, copied = small.value, None
    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "gpu" and not call.args \
            and isinstance(call.func.value, cst.Call) and isinstance(small.targets[0].target, cst.Name):
        call, copied = call.func.value, "gpu"
    path = fn_path(imports, call.func)
    kind = "fn"
    if path is None:
        path = ndd_path_of(imports, call.func)
        kind = "ndd"
    if path is None:
        return None
    fn_name, entry = (op_entry(path) if kind == "fn" else ndd_entry(path))
    if not entry or entry.get("kind") != "reader":
        return None
    return small.targets[0].target, call, fn_name, entry, copied


def make_reader(call: cst.Call, fn_name: str, entry: dict, target, env: Env, desc: PipelineDesc,
                var: str, original=None) -> ReaderSpec:
    ndd_path = entry["ndd"]
    new_call = without_kwargs(call, READER_DROPPED).with_changes(func=ndd_attr(ndd_path))
    shuffle = kwarg(new_call, "random_shuffle")
    if shuffle is not None and literal_value(shuffle) is not False and kwarg(new_call, "seed") is None:
        new_call = with_kwarg(new_call, "seed", expr(env.seed))
        env.report(rules.READER_SEED.id,
                     f"ndd.{ndd_path} shuffles with seed={env.seed} (the pipeline seed): the order is "
                     f"reproducible from run to run but is not the order the pipeline produced", original)
    name = kwarg(new_call, "name")
    name_value = literal_value(name) if name is not None else None
    kwargs = {a.keyword.value: a.value for a in new_call.args if a.keyword is not None}
    if isinstance(target, cst.Name) and _one_output(entry, target.value, desc.extra.get("statements", ())):
        target = cst.Tuple([cst.Element(target)])  # next_epoch always yields a tuple: unpack the one output
    return ReaderSpec(var=var, call=new_call, ndd_path=ndd_path, target=target,
                      name=name_value if isinstance(name_value, str) else None, kwargs=kwargs,
                      comments=comment_lines(original))


def comment_lines(statement) -> list:
    """The comments above a statement the unroll replaces (a reader's, the return's): they move with it."""
    lines = getattr(statement, "leading_lines", ())
    return [line for line in lines if line.comment is not None]


def _one_output(entry: dict, name: str, statements) -> bool:
    """Whether a reader bound to one name gives one output (a DataNode) rather than a list of them.
    The table knows for most readers; where the count depends on the arguments (video, COCO, ...), the
    pipeline's own code says it: a list is only ever indexed or unpacked, one output is used whole."""
    outputs = entry.get("outputs")
    if outputs == 0:  # outputs named by the arguments (tfrecord's features): a dict in both modes
        return False
    if isinstance(outputs, int):
        return outputs == 1
    uses = _NameUses(name)
    for statement in statements:
        walk(statement, uses)
    return uses.whole > 0 and uses.indexed == 0


class _NameUses(cst.CSTVisitor):
    def __init__(self, name: str):
        super().__init__()
        self.name = name
        self.whole = 0
        self.indexed = 0
        self._indexed: set = set()

    def visit_Subscript(self, node):
        if isinstance(node.value, cst.Name) and node.value.value == self.name:
            self.indexed += 1
            self._indexed.add(node.value)

    def visit_AssignTarget(self, node):
        return False  # the binding itself

    def visit_Name(self, node):
        if node.value == self.name and node not in self._indexed:
            self.whole += 1


def _changed_by_steps(facts, in_steps: set[int], yields_in_steps: bool) -> set[str]:
    """The names that statements of the steps change (``ChangedNames``, through the aliases ``a = b`` makes) or
    bind again after a statement of the steps read them: a statement binding one of them runs in the steps too,
    or the next step would start from what the last one left (``outs = []`` before the loop, ``outs.append(op())``
    in it). ``in_steps``: the statements that are steps' whatever they bind (readers, sources, conditions).
    Decided as build_graph decides, to a fixpoint: a statement kept in the steps may change names in turn."""
    changed: set[str] = set()
    last = len(facts) - 1
    while True:
        step_names: set[str] = set()
        read_by_steps: set[str] = set()
        found: set[str] = set()
        loaded: set[str] = set()  # what the steps read (read_by_steps holds what they bind too)
        aliases: set[tuple[str, str]] = set()
        for i, fact in enumerate(facts):
            reads, binds = fact.reads.names, fact.binds.names
            aliases |= fact.changes.aliases
            if i in in_steps or fact.calls.found or reads & step_names or binds & (read_by_steps | changed) or (
                    yields_in_steps and i == last):
                found |= fact.changes.names | (binds & (loaded | (fact.changes.loaded - fact.changes.loop_targets)))
                loaded |= fact.changes.loaded
                read_by_steps |= reads
                step_names |= binds
        grown = True
        while grown:  # one object under two names: a change through either
            grown = False
            for a, b in aliases:
                if (a in found) != (b in found):
                    found |= {a, b}
                    grown = True
        if found <= changed:
            return changed
        changed |= found


def build_graph(desc: PipelineDesc, statements, outputs, env: Env, closing=None):
    """Fill desc.readers / pre / loop / outputs from the body of one pipeline (``closing``: the statement
    that gave the outputs, a return or set_outputs: its comments go above the yield)."""
    imports = env.ctx.imports
    yields_in_steps = outputs is None  # the last statement yields in each branch (closing_branches)
    desc.extra["yields_in_steps"] = yields_in_steps
    outputs = [] if outputs is None else outputs
    desc.extra["returned_kinds"] = returned_kinds(outputs, env.ctx.facts.get("flow"), desc.style == "class")
    if desc.style == "with":
        statements, outputs, renamed = python_functions.unshadow(imports, list(statements), list(outputs),
                                                                   env.ctx.may_mention)
        for rename in renamed:
            env.report(rules.PYTHON_FUNCTION.id, f"{rename}: the block bound a Python operator's result to its "
                       f"function's name, which the generator would make local", desc.node)
    desc.extra["closing_comments"] = comment_lines(closing)
    taken = set(desc.params)
    for node in [*statements, *outputs]:
        taken |= _reads_and_binds(node)[0]
    statements, outputs = sources.hoist_nested(imports, list(statements), list(outputs), taken, env.report,
                                               env.ctx.may_mention)
    desc.extra["statements"] = [*statements, *outputs]  # what a reader's single name is used by
    facts = [_StatementFacts(statement, imports, env.ctx.facts.get("flow")) for statement in statements]
    returns = [found for fact in facts for found in fact.returns.found]
    if returns:
        raise CannotUnroll("a return before the end of the pipeline", returns[0])

    reader_at: list[int] = []
    conditional_at: list[int] = []  # `if` blocks that create readers or sources under a build-time condition
    parsed = []
    for i, statement in enumerate(statements):
        found = _reader_statement(statement, imports) or graph_functions.inline_reader(statement, env, desc,
                                                                                       statements)
        parsed.append(found)
        if found is not None:
            reader_at.append(i)
        elif conditional.holds_sources(statement, facts[i]) or isinstance(statement, cst.If) and any(
                inner in desc.extra.get("branch_object_readers", {}) for block in conditional.branches(statement)
                for inner in block.body):  # (a Pipeline subclass's ops reader objects, class_description._branch_readers)
            conditional_at.append(i)
        elif facts[i].calls.readers:
            raise CannotUnroll("a reader that is not assigned directly in the pipeline body", statement)
    several_objects = desc.style == "class" and desc.extra.get("object_readers", 0) == len(reader_at)
    if len(reader_at) > 1 and (desc.style == "class" and not several_objects or checkpoints.enabled(desc.config)):
        raise CannotUnroll("several readers in one " + ("Pipeline subclass" if desc.style == "class" else
                           "checkpointed pipeline") + " (each reader's epochs are its own; write the loop by hand)",
                           statements[reader_at[1]])

    if conditional_at and checkpoints.enabled(desc.config):
        raise CannotUnroll("a reader or external_source under a condition in a checkpointed pipeline",
                           statements[conditional_at[0]])
    source_specs, nested_specs = _external_sources(desc, statements, facts, env, set(conditional_at))
    desc.extra["external_sources"] = len(source_specs) + len(nested_specs)
    raising = next((spec for spec in [*source_specs.values(), *nested_specs.values()] if spec.raises), None)
    if raising is not None and raising in nested_specs.values():
        raise sources.SourceError("cycle=\"raise\" under a condition: its epochs end with the source", raising.statement)
    if raising is not None and (reader_at or desc.style == "class"):
        raise sources.SourceError("cycle=\"raise\" " + ("next to a reader: pipe.reset() restarts the source but not the "
                                  "reader's epoch" if reader_at else "in a Pipeline subclass: its steps do not "
                                  "restart on reset()"), raising.statement)
    # No reader, and one source that ends: StopIteration ends an epoch and pipe.reset() starts the next, which
    # a ReaderStream reproduces when the module resets the pipeline (epoch_statements). Not several sources:
    # at the end pipeline mode still pulls (and drops) a batch of each source that has not ended, so their
    # next epochs start one batch on (pipeline.py, _run_input_callbacks)
    desc.extra["restartable"] = len(source_specs) == 1 and not reader_at and not conditional_at and \
        desc.style != "class" and not next(iter(source_specs.values())).cycles
    desc.extra["source_slots"] = []  # (start, end, spec): the statements of desc.loop that pull each source
    if len(source_specs) == 1 and not reader_at and not conditional_at and sources.can_loop(
            next(iter(source_specs.values()))):
        desc.extra["source_loop"] = next(iter(source_specs.values()))
    fixer = _RandomFixer(env, desc)
    sourceless = not reader_at and not source_specs and not conditional_at
    taken = set(desc.params).union(*(f.reads.names | f.binds.names for f in facts))  # names a stream may not take
    step_names: set[str] = set()  # names that hold pipeline data (bound once per step)
    read_by_steps: set[str] = set()  # names the per-step statements read
    loop_bound: set[str] = set()  # names the per-step statements bind
    anyway = desc.extra.get("steps_anyway", ())  # (per_sample.py: a split's parts start as None in each step)
    forced = {i for i, statement in enumerate(statements) if any(statement is s for s in anyway)}
    changed = _changed_by_steps(facts, {*reader_at, *source_specs, *conditional_at, *forced}, yields_in_steps)
    for i, statement in enumerate(statements):
        env.current = statement
        spec = source_specs.get(i)
        reads, binds = facts[i].reads.names, facts[i].binds.names
        if spec is not None or parsed[i] is not None:
            step_names.update(binds)
            read_by_steps.update(reads)
        if spec is not None:
            looped = desc.extra.get("source_loop") is spec
            if looped:
                desc.extra["source_slots"].append((len(desc.loop), len(desc.loop) + len(
                    sources.as_batch_statements(spec)), spec))
                desc.loop.extend(sources.as_batch_statements(spec))
                how = f"the generator loops over {code_of(sources.loop_iterable(spec))}" + \
                    (" (endlessly: cycle)" if spec.cycles else "; it ends when the source does, as pipe.run() "
                     "raised StopIteration")
            else:
                desc.extra["source_slots"].append((len(desc.loop), len(desc.loop) + len(
                    sources.pull_statements(spec, env.batch_size)), spec))
                desc.loop.extend(sources.pull_statements(spec, env.batch_size))
                desc.extra.setdefault("source_setup", []).extend(_source_setup(spec, statement, env))
                how = {"generator": f"{spec.var} = {code_of(spec.source)}() is pulled with next() each step",
                       "iterable": f"{spec.var} = iter({code_of(spec.source)}) is pulled with next() each step",
                       "callable": f"{code_of(spec.source)} is called " + (
                           "once per sample (batch_size calls a step)" if spec.per_sample else "each step") + (
                           f" with the {spec.argument.replace('_', ' ')} pipeline mode passed" if spec.argument
                           else ""),
                       "runtime": f"{code_of(spec.source)} is iterated or called (decided at run time, as "
                                  f"pipeline mode did) " + ("once per sample" if spec.per_sample else "each step")}[spec.kind]
                if spec.per_sample and spec.kind in ("generator", "iterable"):
                    how += " batch_size times (one sample each)"
            env.report(rules.EXTERNAL_SOURCE.id, f"fn.external_source -> {how}; each item becomes "
                       f"ndd.as_batch(item)", statement)
            continue
        if i in conditional_at:
            later = set().union(*(fact.binds.names for fact in facts[i:]))
            _conditional_if(statement, env, desc, fixer, nested_specs, step_names, read_by_steps, later, taken,
                            changed)
            continue
        stream = None if reads & step_names else _source_helper_call(statement, env, sourceless, statements[i + 1:],
                                                                     outputs)
        if stream is not None:  # another module's graph part that holds the readers: a stream, made once
            _pull_stream(statement, stream, env, desc, taken)
            step_names.update(binds)
            read_by_steps.update(reads)
            continue
        found = parsed[i]
        if found is not None:
            target, call, fn_name, entry, copied = found
            var = _reader_var(env, desc)
            desc.readers.append(make_reader(call, fn_name, entry, target, env, desc, var, statement))
            env.report(rules.READER_ONCE.id,
                         f"ndd.{entry['ndd']} is created once and iterated with "
                         f"{var}.next_epoch(batch_size={env.batch_size})", statement)
            if copied is not None:  # the reader's output copied to the GPU: the same copy, first in the step
                desc.loop.append(stmt(f"{target.value} = {target.value}.{copied}()\n"))
                step_names.add(target.value)
            continue
        if i not in forced and not facts[i].calls.found and not reads & step_names and not binds & (
                read_by_steps | changed) and not (yields_in_steps and i == len(statements) - 1):
            # plain Python that uses no pipeline data: the pipeline body ran it once, at definition
            new = _with_constants_made_once(statement, fixer, False, step_names, loop_bound)
            _made_once(desc, fixer)  # a constant's call, made just before, as there (constants.py)
            desc.pre.append(new)  # (its constants, if any)
        else:
            desc.loop.append(_with_constants_made_once(statement, fixer, True, step_names, loop_bound))
            _made_once(desc, fixer)  # a constant's call, made once before the steps, as at definition
            step_names.update(binds)
            read_by_steps.update(reads)
            loop_bound.update(binds)
    desc.outputs = [_with_constants_made_once(o, fixer, True, step_names, loop_bound) for o in outputs]
    _made_once(desc, fixer)
    _steps_start_from_outside(desc, env)


def _steps_start_from_outside(desc: PipelineDesc, env: Env) -> None:
    """A name bound outside the steps (a pipeline function's parameter, a name around a ``with pipe:`` block) that
    the steps read and then bind again (``if factor is None: factor = fn.random.uniform(...)``): pipeline mode ran
    that code once, so every pipe.run() computed from the outside value; a generator's steps would start from what
    the last step left (a parameter: step 1's random batch forever; a name around a ``with`` block: a local of the
    generator, unbound). Each step starts from the outside value under a name of its own, which the steps bind
    instead (``factor_step = factor``). Names bound once before the steps are not these: ``_changed_by_steps``
    moves such a binding into the steps. ``desc.extra["outside_names"]``: the names the function around a ``with``
    block binds outside it (none at module level)."""
    outside = set(desc.params) if desc.style == "def" else desc.extra.get("outside_names", set()) \
        if desc.style == "with" else set()
    if not outside:
        return
    in_pre, in_steps = AssignedNames(), AssignedNames()
    for statement in desc.pre:
        walk(statement, in_pre)
    for statement in desc.loop:
        walk(statement, in_steps)
    given = {n for spec in desc.readers for n in target_names(spec.target)}  # what each step starts with
    if desc.extra.get("source_loop") is not None:
        given.update(target_names(desc.extra["source_loop"].target))
    read_first = _read_before_bound(desc.loop, desc.outputs, in_steps.names - in_pre.names - given)
    if not read_first:
        return
    restarted = sorted(read_first & outside)
    if not restarted:
        return
    nested = _NestedScopes(set(restarted))
    for node in [*desc.loop, *map(cst.Expr, desc.outputs)]:
        walk(node, nested)
    if nested.found:
        raise CannotUnroll(f"{nested.found[0]} is read and bound again by the steps, which also bind it in a nested "
                           f"function or comprehension: each step cannot start from its value under a name of its "
                           f"own", desc.node)
    taken = set(re.findall(r"[A-Za-z_]\w*", env.ctx.source)) | set(desc.params) | {env.batch_size, env.seed}
    for statement in [*desc.pre, *desc.loop, *map(cst.Expr, desc.outputs)]:
        taken |= _reads_and_binds(statement)[0]
    renames = {}
    for name in restarted:
        renames[name] = free_name(f"{name}_step", taken)
        taken.add(renames[name])
    renamer = _Renamer(renames)
    positions = env.ctx.positions
    loop = []
    for statement in desc.loop:
        new = transform(statement, renamer, layout=False)
        if statement in positions:
            positions.setdefault(new, positions[statement])
        loop.append(new)
    desc.outputs = [transform(output, renamer, layout=False) for output in desc.outputs]
    starts = [stmt(f"{renames[name]} = {name}  # each step starts from {name}, as each pipe.run() did\n")
              for name in restarted]
    desc.loop = [*starts, *loop]
    desc.extra["source_slots"] = [(start + len(starts), end + len(starts), spec)
                                  for start, end, spec in desc.extra.get("source_slots", [])]
    for name in restarted:
        env.report(rules.UNROLL.id, f"{name} is bound again by the steps after they read it: each step starts "
                   f"from {renames[name]} = {name}, as each pipe.run() computed from its value", desc.node)


def _read_before_bound(statements, outputs, names: set[str]) -> set[str]:
    """Those of ``names`` that a step may read before it binds them: on some path through the step, read before a
    statement bound them for certain (``name = ...``, or an ``if`` whose every branch does)."""
    found: set[str] = set()
    bound = _scan_reads(statements, set(), names, found)
    for output in outputs:
        reads = NameReads()
        walk(cst.Expr(output), reads)
        found |= (reads.names & names) - bound
    return found


def _scan_reads(statements, bound: set[str], names: set[str], found: set[str]) -> set[str]:
    """``_read_before_bound`` over a block that starts with ``bound`` bound: adds to ``found``, returns what is bound
    for certain after the block."""
    bound = set(bound)
    for statement in statements:
        if isinstance(statement, cst.If):
            reads = NameReads()
            walk(cst.Expr(statement.test), reads)
            found |= (reads.names & names) - bound
            in_body = _scan_reads(statement.body.body, bound, names, found)
            orelse = statement.orelse
            in_else = bound if orelse is None else _scan_reads(
                [orelse] if isinstance(orelse, cst.If) else orelse.body.body, bound, names, found)
            bound = in_body & in_else
            continue
        changes = ChangedNames()
        walk(statement, changes)
        found |= (changes.loaded & names) - bound
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign):
                    bound.update(n for target in small.targets for n in target_names(target.target))
                elif isinstance(small, cst.AnnAssign) and small.value is not None:
                    bound.update(target_names(small.target))
    return bound


class _NestedScopes(cst.CSTVisitor):
    """Which of ``names`` a nested function, lambda, class or comprehension of the steps binds as its own (a
    parameter, a comprehension's target, an assignment in a nested ``def``), or ``global``/``nonlocal`` declares:
    there the new name would change what the code means. (Where a nested scope only reads one, it reads the
    steps' variable, which the new name holds.)"""

    def __init__(self, names: set[str]):
        self.names = names
        self.found: list[str] = []

    def _own(self, found):
        self.found += sorted(set(found) & self.names)

    def visit_FunctionDef(self, node):
        bound = AssignedNames()
        walk(node.body, bound)
        self._own(bound.names)

    visit_ClassDef = visit_FunctionDef

    def visit_Param(self, node):
        self._own([node.name.value])

    def visit_CompFor(self, node):
        self._own(target_names(node.target))

    def visit_Global(self, node):
        self._own(n.name.value for n in node.names)

    visit_Nonlocal = visit_Global


class _Renamer(cst.CSTTransformer):
    """Each reference to a name of ``renames`` (not an attribute's or a keyword's name) under its new name."""

    def __init__(self, renames: dict[str, str]):
        self.renames = renames
        self._skip: set[int] = set()

    def visit_Attribute(self, node):
        self._skip.add(id(node.attr))

    def visit_Arg(self, node):
        if node.keyword is not None:
            self._skip.add(id(node.keyword))

    def leave_Name(self, original_node, updated_node):
        if id(original_node) in self._skip or original_node.value not in self.renames:
            return updated_node
        return updated_node.with_changes(value=self.renames[original_node.value])


def _made_once(desc: PipelineDesc, fixer) -> None:
    """The assignments of constants' calls (``constants.hoist``) into ``desc.pre``, listed in ``made_once``: a
    Pipeline subclass's steps keep them before their loop (its other plain Python runs in each step)."""
    made = fixer.take_pending()
    desc.pre.extend(made)
    desc.extra.setdefault("made_once", []).extend(made)


def _with_constants_made_once(node, fixer, in_step: bool, step_names: set[str], loop_bound: set[str]):
    """``node`` through ``fixer``, where the call of a ``types.Constant(f(x))`` is made once (``constants.hoist``):
    collected for the caller to put in ``desc.pre``; in a step only when the call reads no name that the steps
    bind and calls no DALI operator (pipeline mode made it when the graph was defined)."""
    def check(value):
        if not in_step:
            return True
        reads, calls = NameReads(), _ContainsCall(fixer.env.ctx.imports)
        walk(cst.Expr(value), reads)
        walk(cst.Expr(value), calls)
        return not calls.found and not reads.names & (step_names | loop_bound)

    fixer.hoisting, fixer.in_step, fixer.hoist_check = "collect", in_step, check
    try:
        return transform(node, fixer, layout=False)
    finally:
        # (check refers to fixer: left on it, the pair would keep the fixer's trees in a cycle after the migration)
        fixer.hoisting, fixer.in_step, fixer.hoist_check = None, False, _hoist_anywhere


def _hoist_anywhere(value) -> bool:
    return True


def _source_setup(spec, statement, env: Env) -> list:
    """What is created once before the loop for a source pulled each step (``sources.setup_statements``), with
    the class it is called with imported."""
    setup = sources.setup_statements(spec)
    if spec.kind == "runtime":  # its kind is decided with inspect when the generator runs
        request_import(env.ctx, "inspect", "import inspect")
    if spec.argument in sources.INFO_CLASS:  # imported at the top, where the imports pass sees it
        info = sources.INFO_CLASS[spec.argument]
        request_import(env.ctx, info, f"from nvidia.dali.types import {info}")
    return setup


def _conditional_if(statement: cst.If, env: Env, desc: PipelineDesc, fixer, nested_specs: dict, step_names: set[str],
                    read_by_steps: set[str], bound_later: set[str], taken: set[str],
                    changed: set[str] = frozenset()) -> None:
    """An ``if`` of the body that creates readers or external sources under a condition decided when the graph
    was defined (``conditional.py``): its readers and sources, and the plain Python of its blocks, run once
    under the same condition in ``desc.pre``; the step keeps the ``if`` and pulls each reader's stream there."""
    imports = env.ctx.imports
    conditional.check_condition(statement, env, step_names, bound_later, _ContainsCall)
    readers = desc.extra.setdefault("conditional_readers", [])
    conditions = desc.extra.setdefault("reader_conditions", {})  # reader var -> when it exists
    setup_blocks, source_blocks, step_blocks = [], [], []
    for block, condition in zip(conditional.branches(statement), conditional.block_conditions(statement)):
        setup, source_setup, step = [], [], []
        for inner in block.body:
            env.current = inner
            facts = _StatementFacts(inner, imports, env.ctx.facts.get("flow"))
            reads, binds = facts.reads.names, facts.binds.names
            held = desc.extra.get("branch_object_readers", {}).get(inner)
            if held is not None or desc.style == "class" and _named_reader(inner, imports):
                # a Pipeline subclass's reader: created in __init__ (class_writing.py), its stream here
                _init_reader(inner, held, statement, condition, env, desc, taken, setup, step)
                step_names.update(binds)
                continue
            found = _reader_statement(inner, imports) or graph_functions.inline_reader(
                inner, env, desc, desc.extra.get("statements", ()))
            spec = nested_specs.get(inner)
            if found is not None:
                target, call, fn_name, entry, copied = found
                if "endless" not in desc.extra:
                    desc.extra["endless"] = free_name("endless", taken)
                    taken.add(desc.extra["endless"])
                    desc.pre.append(endless_function(desc.extra["endless"], env.batch_size))
                    desc.extra.setdefault("conditional_setup", []).append(desc.pre[-1])
                var = _reader_var(env, desc)
                stream = free_name(conditional.STREAM_PREFIX + var.removeprefix(f"{env.prefix}reader"), taken)
                taken.update((var, stream))
                reader = make_reader(call, fn_name, entry, target, env, desc, var, inner)
                if desc.style == "class" and reader.name is not None:  # (self._readers lists those of __init__)
                    raise CannotUnroll(f"a reader named {reader.name!r} under `if {code_of(statement.test)}` in "
                                       f"define_graph: its metadata would not be found by that name", inner)
                readers.append(reader)
                conditions[var] = condition
                setup += [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(_target(var))], reader.call)],
                                                  leading_lines=reader.comments),
                          conditional.stream_statement(stream, var, desc.extra["endless"])]
                step.append(conditional.pull_statement(reader.target, stream))
                if copied is not None:
                    step.append(stmt(f"{target.value} = {target.value}.{copied}()\n"))
                env.report(rules.READER_ONCE.id, f"ndd.{entry['ndd']} under `if {code_of(statement.test)}` is created "
                           f"once under that condition (decided when the pipeline was defined) and each step takes "
                           f"next({stream}), its batches epoch after epoch", inner)
                step_names.update(binds)
                continue
            if spec is not None:
                source_setup += _source_setup(spec, inner, env)  # with the other sources' setup, in the steps (counters)
                step += sources.pull_statements(spec, env.batch_size)
                env.report(rules.EXTERNAL_SOURCE.id, f"fn.external_source under `if {code_of(statement.test)}`: its "
                           f"source is set up once under that condition and pulled in the step's `if`; each item "
                           f"becomes ndd.as_batch(item)", inner)
                step_names.update(binds)
                read_by_steps.update(reads)
                continue
            if facts.calls.readers or facts.nested_sources.found is not None or facts.returns.found:
                raise CannotUnroll("a reader that is not assigned directly in the pipeline body", inner)
            if not facts.calls.found and not reads & step_names and not binds & (read_by_steps | changed):
                setup.append(transform(inner, fixer, layout=False))  # plain Python: ran once, at definition
            else:
                step.append(transform(inner, fixer, layout=False))
                step_names.update(binds)
                read_by_steps.update(reads)
        setup_blocks.append(setup)
        source_blocks.append(source_setup)
        step_blocks.append(step)
    sources_once = conditional.rebuild(statement, source_blocks)
    if sources_once is not None:
        desc.extra.setdefault("source_setup", []).append(sources_once.with_changes(leading_lines=[]))
    once = conditional.rebuild(statement, setup_blocks)
    if once is not None:
        if desc.pre and isinstance(desc.pre[-1], cst.FunctionDef):
            once = once.with_changes(leading_lines=[cst.EmptyLine(indent=False), *once.leading_lines])
        desc.pre.append(once)
        desc.extra.setdefault("conditional_setup", []).append(once)
    each_step = conditional.rebuild(statement, step_blocks)
    if each_step is not None:
        desc.loop.append(each_step)
        tests = NameReads()
        walk(statement.test, tests)
        read_by_steps.update(tests.names)


def _named_reader(inner, imports) -> bool:
    """``targets = fn.readers.x(..., name="Reader")``: a reader whose metadata is asked for by its name."""
    found = _reader_statement(inner, imports)
    return found is not None and found[4] is None and kwarg(found[1], "name") is not None


def _init_reader(inner, held, statement: cst.If, condition, env: Env, desc: PipelineDesc, taken: set[str], setup: list,
                 step: list) -> None:
    """A reader of a Pipeline subclass's define_graph under a build-time ``if``: an ops reader object (``held``:
    its attribute, the call's targets, the ndd call with the object's and the call's arguments, its fn path and
    table entry), or an fn reader with a name: created in ``__init__``, the object where the ops object was, the
    fn reader at its end under the same condition, each listed in ``self._readers`` under the condition (so
    epoch_size()/reader_meta() answer by its name before the first step); the steps take its stream where the
    ``if`` held the call (``desc.extra["init_branch_readers"]``, written by class_writing.emit_class)."""
    if held is not None:
        attr, target, call, fn_name, entry = held
    else:
        target, call, fn_name, entry, _ = _reader_statement(inner, env.ctx.imports)
        attr = free_name("reader", taken | desc.extra.setdefault("self_attributes", set()))
        desc.extra["self_attributes"].add(attr)
    if "endless" not in desc.extra:
        desc.extra["endless"] = free_name("endless", taken)
        taken.add(desc.extra["endless"])
        desc.pre.append(endless_function(desc.extra["endless"], env.batch_size))
        desc.extra.setdefault("conditional_setup", []).append(desc.pre[-1])
    var = f"self.{attr}"
    stream = free_name(conditional.STREAM_PREFIX, taken)
    taken.add(stream)
    reader = make_reader(call, fn_name, entry, target, env, desc, var, inner)
    if kwarg(reader.call, "max_batch_size") is None:  # its metadata may be asked for before its first batch
        reader.call = with_kwarg(reader.call, "max_batch_size", expr(env.batch_size))
    desc.extra.setdefault("init_branch_readers", []).append((reader, condition, attr, held is not None, inner))
    setup.append(conditional.stream_statement(stream, var, desc.extra["endless"]))
    step.append(conditional.pull_statement(reader.target, stream))
    env.report(rules.READER_ONCE.id, f"ndd.{entry['ndd']} under `if {code_of(statement.test)}` is created once in "
               f"__init__" + ("" if held is not None else " under that condition") + f" (self.{attr}); the steps "
               f"take next({stream}), its batches epoch after epoch, where define_graph called it", inner)


def _reader_var(env: Env, desc: PipelineDesc) -> str:
    """``reader``, ``reader_2``, ...: numbered over the readers created directly and under conditions."""
    count = len(desc.readers) + len(desc.extra.get("conditional_readers", ()))
    return f"{env.prefix}reader" + (f"_{count + 1}" if count else "")


def _source_helper_call(statement, env: Env, sourceless: bool, later, outputs) -> tuple[cst.Call, bool] | None:
    """(call, assumed) for ``targets = helper(...)`` where ``helper`` is a source helper (``source_helpers``)
    of another module: one the run knows, or (``assumed``) one it cannot see whose outputs are the data of a
    pipeline with no reader or external_source of its own (``sourceless``): they are its ``outputs`` or are
    passed to its operators (``later``: the statements after it). A plain Python value there
    would not be pipeline data; a graph part that takes no data and gives it is a source."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if not isinstance(small, cst.Assign) or len(small.targets) != 1 or not isinstance(small.value, cst.Call) \
            or any(a.star for a in small.value.args) or kwarg(small.value, "batch_size") is not None:
        return None
    qualname = env.ctx.imports.qualname(small.value.func)
    if qualname is None or qualname.startswith("nvidia."):
        return None
    project = env.ctx.facts.get("project")
    if project and project.resolve(qualname) in project.source_helpers:
        return small.value, False
    module = qualname.rpartition(".")[0]
    if not sourceless or not module or project and module in project.imported_modules:
        return None  # (a module of the run: its helpers are known)
    names = set(target_names(small.targets[0].target))
    if any(isinstance(output, cst.Name) and output.value in names for output in outputs):
        return small.value, True
    uses = _DataUses(env.ctx.imports, names)
    for node in later:
        walk(node, uses)
    return (small.value, True) if uses.found else None


class _DataUses(cst.CSTVisitor):
    """Whether one of ``names`` is passed as an operator's input."""

    def __init__(self, imports, names: set[str]):
        super().__init__()
        self.imports, self.names, self.found = imports, names, False

    def visit_Call(self, node):
        path = fn_path(self.imports, node.func)
        if path is not None and any(a.keyword is None and isinstance(a.value, cst.Name) and a.value.value in self.names
                                    for a in node.args):
            self.found = True


def eager_sources(desc: PipelineDesc) -> list[str]:
    """The variables of the source helpers' streams (``_pull_stream``) a pipeline may create with its readers,
    before its steps, so that the readers they name answer for it; none where other statements are set up with
    them (``source_setup``)."""
    sources = desc.extra.get("source_vars", [])
    return sources if len(sources) == len(desc.extra.get("source_setup", ())) else []


def _pull_stream(statement, stream: tuple[cst.Call, bool], env: Env, desc: PipelineDesc, taken: set[str]) -> None:
    """The stream created once with the pipeline's batch size (and seed), ``next()`` of it each step."""
    call, assumed = stream
    small = statement.body[0]
    project = env.ctx.facts.get("project")
    random = None if assumed or not project else project.source_helpers.get(
        project.resolve(env.ctx.imports.qualname(call.func)))
    if random or random is None and desc.config.get("seed") is not None:
        # its random operators draw from the thread's RNG, which the pipeline's seed sets (one it cannot see
        # may have some: a pipeline given a seed seeds it)
        desc.has_random = True
    made = with_kwarg(call, "batch_size", expr(env.batch_size))
    if desc.config.get("seed") is not None and kwarg(call, "seed") is None:
        made = with_kwarg(made, "seed", expr(env.seed))  # for a reader that shuffles without its own seed
    var = env.prefix + free_name("source", taken)
    taken.add(var)
    desc.extra.setdefault("source_vars", []).append(var)
    desc.extra.setdefault("source_setup", []).append(
        cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(expr(var))], made)], leading_lines=statement.leading_lines))
    desc.loop.append(cst.SimpleStatementLine([cst.Assign(small.targets, expr(f"next({var})"))]))
    why = ("is not visible to this run, and its outputs are the data of a pipeline that reads nothing else: it "
           "is taken to be a source helper, as dali-migrate writes one in its own module (migrate that module "
           "too)" if assumed else "holds the pipeline's readers in another module (a source helper)")
    env.report(rules.SOURCE_HELPER.id, f"{code_of(call.func)}(...) {why}: its stream is created once ({var}) and "
               f"next({var}) gives each step", statement)


def _nested_source_reason(statement) -> str:
    """Why an external_source that is not ``name = fn.external_source(...)`` at the body's top level stays."""
    keyword = {cst.If: "if", cst.For: "for", cst.While: "while", cst.With: "with", cst.Try: "try"}.get(type(statement))
    if keyword is not None:
        return (f"external_source inside an `{keyword}` block of the pipeline body: dali-migrate migrates an "
                f"external_source assigned at the body's top level only")
    return ("external_source inside an expression that pipeline mode may not have evaluated (a conditional "
            "expression, and/or, a lambda, a comprehension) or with num_outputs: assign it to a name first")


def _external_sources(desc: PipelineDesc, statements, facts: list[_StatementFacts], env: Env,
                      conditional_at=frozenset()) -> tuple[dict[int, "sources.SourceSpec"], dict]:
    """(statement index -> the external_source assigned there, branch statement -> the external_source assigned
    there in the ``if`` blocks at ``conditional_at``); SourceError for one that cannot be migrated."""
    local_names = set(desc.params).union(*(fact.binds.names for fact in facts))
    symbols = env.ctx.facts.get("module_symbols", {})
    found, nested = {}, {}

    def describe(target, call, statement):
        return sources.describe_source(target, call, statement, len(found) + len(nested) + 1, symbols, local_names,
                                       lambda rule_id, message, node: env.report(rule_id, message, node),
                                       env.ctx.facts.get("flow"))

    for i, statement in enumerate(statements):
        direct = facts[i].direct_source
        if i in conditional_at:
            for block in conditional.branches(statement):
                for inner in block.body:
                    source = sources.external_source_statement(inner, env.ctx.imports)
                    if source is not None:
                        nested[inner] = describe(*source, inner)
                    elif _has_source(inner, env.ctx.imports):
                        raise sources.SourceError(_nested_source_reason(inner), inner)
            continue
        if facts[i].nested_sources.found is not None:
            raise sources.SourceError(_nested_source_reason(statement), statement)
        if direct is not None:
            found[i] = describe(*direct, statement)
    taken = local_names | set(symbols)
    specs = [*found.values(), *nested.values()]
    for spec in specs:  # `source = source` would read the new local, not the closure's name
        taken |= set(re.findall(r"[A-Za-z_]\w*", code_of(spec.source)))
    for n, spec in enumerate(specs, 1):
        spec.var = free_name("source" if len(specs) == 1 else f"source_{n}", taken)
        taken.add(spec.var)
    return found, nested


def _has_source(statement, imports) -> bool:
    nested = _NestedSources(imports, None)
    walk(statement, nested)
    return nested.found is not None
