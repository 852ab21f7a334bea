"""``pipe = Pipeline(...)`` filled inside ``with pipe:`` and closed with ``pipe.set_outputs(...)``.

The pair becomes a generator function ``<pipe>_steps`` (the Pipeline arguments are its keyword
defaults) and ``pipe = <pipe>_steps()``: the same name now holds the generator.
"""

from __future__ import annotations

import libcst as cst

from ...findings import marker_text
from ..base import has_marker
from ...walk import walk
from . import checkpoints, rules
from .graph import build_graph, eager_sources
from .generator_code import (_uses_name, device_statement, epoch_statements, grow_statement, loop_statements,
                             rng_statements_after_pre, seeding_statements, takes_device, thread_statement)
from .outputs import closing_branches
from .model import CORE, PIPELINE_CLS, AssignedNames, CannotUnroll, PipelineDesc, code_of, literal_value, stmt
from .signature import (add_core_params, filled_pipeline, generator_names, pipeline_call_config, takes_seed,
                        threads_plan)


def _pipeline_assign(unroller, statement):
    # `target = Call(...)`, one statement on the line (plain checks: importing libcst.matchers costs
    # half a second at start-up)
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Assign) and len(statement.body[0].targets) == 1
            and isinstance(statement.body[0].value, cst.Call)):
        return None
    assign = statement.body[0]
    target = assign.targets[0].target
    if not isinstance(target, (cst.Name, cst.Attribute)):
        return None
    if unroller.ctx.imports.qualname(assign.value.func) != PIPELINE_CLS:
        return None
    return code_of(target), assign.value


def _with_of(statement, name):
    if isinstance(statement, cst.With) and len(statement.items) == 1 and code_of(statement.items[0].item) == name \
            and statement.items[0].asname is None:
        return statement
    return None


def _with_closing(statement, name):
    """A ``with other:`` block that ends with ``name.set_outputs(...)``: its graph is ``name``'s (verified: ``with
    pipe:`` over a pipeline already built and run, closed with ``mask_pipe.set_outputs(...)``, gives mask_pipe that
    graph, and pipe runs on unchanged; ``signature.filled_pipeline``)."""
    if isinstance(statement, cst.With) and len(statement.items) == 1 and statement.items[0].asname is None \
            and isinstance(statement.items[0].item, (cst.Name, cst.Attribute)) \
            and filled_pipeline(statement, code_of(statement.items[0].item)) == name:
        return statement
    return None


def _closes(statement, name) -> bool:
    """A ``with`` block whose last statement is ``name.set_outputs(...)``."""
    return isinstance(statement, cst.With) and isinstance(statement.body, cst.IndentedBlock) \
        and bool(statement.body.body) and _set_outputs(statement.body.body[-1], name) is not None


def _set_outputs(statement, name):
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
            and isinstance(statement.body[0], cst.Expr) and isinstance(statement.body[0].value, cst.Call) \
            and isinstance(statement.body[0].value.func, cst.Attribute) \
            and statement.body[0].value.func.attr.value == "set_outputs":
        call = statement.body[0].value
        if code_of(call.func.value) == name:
            if any(a.star for a in call.args):  # set_outputs(T1, *inputs, *params): as many outputs as they hold
                return [cst.Tuple([cst.StarredElement(a.value) if a.star == "*" else cst.Element(a.value)
                                   for a in call.args])]
            return [a.value for a in call.args]
    return None


def graph_statements(statements, name, imports) -> tuple[list, list | None] | None:
    """(statements, outputs) that ``build_graph`` takes for the body of ``with name:``: those before its closing
    ``name.set_outputs(...)`` and that call's outputs; or, for a body that ends with an if/else chain with
    ``name.set_outputs(...)`` closing each branch (``outputs.closing_branches``), all of them with each branch
    yielding its outputs, and None. None for any other ending."""
    outputs = _set_outputs(statements[-1], name) if statements else None
    if outputs is not None:
        return statements[:-1], outputs
    branched = closing_branches(statements, lambda s: _set_outputs(s, name), imports)
    return (branched, None) if branched is not None else None


def unroll_with_blocks(unroller, body, module_level=False, in_loop=False):
    out = list(body)
    if not any(isinstance(s, cst.With) for s in out) and not unroller.d.migrating_attribute_pipes:
        return out  # (an attribute pipe's __init__ has no `with`: the statement that makes it changes all the same)
    # the statements here were already rewritten: let findings find their original lines
    unroller.ctx.positions.update(unroller.moved_positions)
    i = 0
    while i < len(out):
        kept = out[i] in unroller.ctx.kept_statements
        found = _pipeline_assign(unroller, out[i]) if not kept else None
        if found is None:
            i = _instance_of_kept_class(unroller, out, i) if not kept else i + 1
            continue
        name, call = found
        j = next((k for k in range(i + 1, len(out)) if _with_of(out[k], name)), None)
        if j is None:
            j = next((k for k in range(i + 1, len(out)) if _with_closing(out[k], name)), None)
        if j is None:
            stored = _store_options(unroller, name, call, out[i])
            if stored is not None:  # made here, filled by another method (attribute_pipes.py)
                out[i:i + 1] = stored
                i += max(len(stored), 1)
                continue
            k = next((k for k in range(i + 1, len(out)) if _closes(out[k], name)), None)
            if k is not None:  # filled in another pipeline's block that reads Pipeline.current(): that one's
                item = code_of(out[k].items[0].item)
                out[k] = _marked(unroller, out[k], rules.CANNOT_UNROLL.id, f"{name} stays in pipeline mode: its graph "
                                 f"is built in `with {item}:` and reads Pipeline.current(), which is {item} there, "
                                 f"not {name}")
                unroller.keep.add(name)
            i += 1
            continue
        as_written = out, i, j
        if not module_level:
            out, i, j = _adopt_outside_nodes(unroller, out, i, j)
        try:
            replacement = _unroll_one(unroller, name, call, out[j], module_level, in_loop, body)
        except CannotUnroll as e:
            out, i, j = as_written  # the block stays in pipeline mode: as it was written
            rule_id = e.rule or (rules.CONDITIONALS.id if e.reason.startswith("enable_conditionals")
                                 else rules.CANNOT_UNROLL.id)
            out[j] = _marked(unroller, out[j], rule_id, f"{name} stays in pipeline mode: {e.reason}")
            unroller.keep.add(name)
            i = j + 1
            continue
        leading = out[i].leading_lines
        del out[j]
        replacement[0] = replacement[0].with_changes(
            leading_lines=[*leading, *replacement[0].leading_lines[len(leading):]])
        out[i:i + 1] = replacement
        i += len(replacement)
    _mark_filled_elsewhere(unroller, out)
    return out if module_level else _mark_unadopted(unroller, out)


def _attribute_pipe(unroller, key: str):
    """The Pipeline of this origin key made in __init__ and filled by another method that migrates (the filling
    block's graph described, ``Unroller._prepare``), else None."""
    pipe = unroller.d.migrating_attribute_pipes.get(key)
    return pipe if pipe is not None and key in unroller.with_ok else None


def _store_options(unroller, name, call, statement) -> list | None:
    """``self._pipe = Pipeline(...)`` in __init__, filled by another method that migrates: the statements that store
    its computed options on the object instead (``attribute_pipes.AttributePipe.storing_statements``), else None."""
    pipe = _attribute_pipe(unroller, ".".join(unroller._scope) + ":" + name)
    if pipe is None:
        return None
    stored = pipe.storing_statements(call, statement)
    what = ", ".join(f"{pipe.init_self}.{attribute}" for attribute in pipe.stored.values())
    unroller.report(rules.UNROLL.id, f"{name} = Pipeline(...) is filled by {pipe.method.name.value}(), which becomes "
                    f"its generator: " + (f"the options computed here are stored in {what} for it" if what else
                                          "its options are literals, written there"), statement)
    if not stored and len(statement.leading_lines):
        stored = [cst.SimpleStatementLine([cst.Pass()], leading_lines=statement.leading_lines)]  # (its comments)
    return stored


def _filled_here(unroller, name):
    """The attribute pipe that the method being rewritten (or a function nested in it) fills in ``with name:``, else
    None."""
    return next((pipe for pipe in unroller.d.attribute_pipes if pipe.name == name
                 and any(pipe.method is function for function in unroller._functions)), None)


def _mark_filled_elsewhere(unroller, out) -> None:
    """``with self._pipe:`` closed with ``self._pipe.set_outputs(...)``, over a Pipeline not made in the same block.
    ``self._pipe = Pipeline(...)`` made in ``__init__`` and filled here becomes the generator (``attribute_pipes``),
    with the options __init__ stored on the object; otherwise (made elsewhere, or refused) it stays, marked with that
    cause rather than with what its operators would lack outside a pipeline."""
    made_here = {found[0] for statement in out if (found := _pipeline_assign(unroller, statement)) is not None}
    k = 0
    while k < len(out):
        statement = out[k]
        k += 1
        if not (isinstance(statement, cst.With) and len(statement.items) == 1 and statement.items[0].asname is None
                and isinstance(statement.items[0].item, cst.Attribute)) or statement in unroller.ctx.kept_statements:
            continue
        name = code_of(statement.items[0].item)
        if name in made_here or graph_statements(list(statement.body.body), name, unroller.ctx.imports) is None:
            continue
        if has_marker(statement, rules.CANNOT_UNROLL.id):  # marked by an earlier run: it stays as it was, again
            unroller.keep.add(name)
            continue
        pipe = _filled_here(unroller, name)
        why = (f"its graph is filled here, but {name} = Pipeline(...) is not made in this block (another method "
               f"makes it, or an enclosing block), and the tool migrates a Pipeline made and filled in one block")
        rule_id = rules.CANNOT_UNROLL.id
        refused = unroller.with_refused.get(pipe.key) if pipe is not None else None
        if pipe is not None and pipe.refused is not None:
            why = pipe.refused
        elif refused is not None:  # made in __init__, its graph cannot be described: that cause
            why = refused.reason
            rule_id = refused.rule or (rules.CONDITIONALS.id if why.startswith("enable_conditionals") else rule_id)
        elif pipe is not None and _attribute_pipe(unroller, pipe.key) is not None:
            try:
                replacement = _unroll_one(unroller, name, pipe.carried_call(), statement, False, key=pipe.key)
            except CannotUnroll as e:
                why = e.reason
                rule_id = e.rule or (rules.CONDITIONALS.id if why.startswith("enable_conditionals") else rule_id)
            else:
                replacement[0] = replacement[0].with_changes(leading_lines=statement.leading_lines)
                out[k - 1:k] = replacement
                k += len(replacement) - 1
                continue
        out[k - 1] = _marked(unroller, statement, rule_id, f"{name} stays in pipeline mode: {why}")
        unroller.keep.add(name)


def _instance_of_kept_class(unroller, out, i) -> int:
    """``pipe = MyPipeline(...)`` of a Pipeline subclass of this module with no define_graph, filled with ``with
    pipe:`` (``class_hierarchy.filled_instances``): the class stays in pipeline mode (its definition says why), so its
    block does too, marked with that cause rather than with what its operators would lack outside a pipeline.
    The index of the next statement to look at."""
    statement = out[i]
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Assign) and len(statement.body[0].targets) == 1
            and isinstance(statement.body[0].value, cst.Call) and isinstance(statement.body[0].value.func, cst.Name)
            and isinstance(statement.body[0].targets[0].target, (cst.Name, cst.Attribute))):
        return i + 1
    from .class_hierarchy import filled_instances

    class_name, name = statement.body[0].value.func.value, code_of(statement.body[0].targets[0].target)
    if name not in filled_instances(unroller, class_name):
        return i + 1
    j = next((k for k in range(i + 1, len(out)) if _with_of(out[k], name)), None)
    if j is None:
        return i + 1
    if not has_marker(out[j], rules.CANNOT_UNROLL.id):  # (a body is looked at again when its block is left)
        out[j] = _marked(unroller, out[j], rules.CANNOT_UNROLL.id, f"{name} stays in pipeline mode: it is an "
                         f"instance of {class_name}, a Pipeline subclass that stays in pipeline mode: see its "
                         f"definition")
    unroller.keep.add(name)
    return j + 1


class _HandedOn(cst.CSTVisitor):
    def __init__(self, name: str):
        self.name, self.found = name, None

    def visit_Call(self, node):
        if any(code_of(a.value) == self.name for a in node.args):
            self.found = node


def _handed_on(with_statement: cst.With, name: str) -> cst.Call | None:
    """The last call in the block of ``with name:`` that is given the pipeline itself as an argument."""
    found = _HandedOn(name)
    walk(with_statement.body, found)
    return found.found


def _outside_random(unroller, statement) -> str | None:
    """The name a ``name = fn.random.<op>(keywords only)`` statement binds (an input-less random op), else None."""
    from .model import fn_path, op_entry

    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Assign) and len(statement.body[0].targets) == 1
            and isinstance(statement.body[0].targets[0].target, cst.Name)
            and isinstance(statement.body[0].value, cst.Call)):
        return None
    call = statement.body[0].value
    path = fn_path(unroller.ctx.imports, call.func)
    entry = op_entry(path)[1] if path is not None else None
    if not entry or not entry.get("random") or not entry.get("input_less") \
            or any(a.keyword is None for a in call.args):
        return None
    return statement.body[0].targets[0].target.value


def _adoptable(unroller, out, i, j) -> list[int]:
    """Indexes of the statements of ``out`` that ``_adopt_outside_nodes`` moves into the ``with`` at ``j``
    (the pipeline is created at ``i``)."""
    from .statement_facts import _reads_and_binds

    with_reads = _reads_and_binds(out[j].body)[0]
    moved: list[int] = []
    for k in range(j - 1, -1, -1):
        target = _outside_random(unroller, out[k]) if k != i else None
        if target is None or target not in with_reads:
            continue
        reads = _reads_and_binds(out[k].body[0].value)[0]
        others = [n for n in range(len(out)) if n not in (j, k) and n not in moved]
        if any(target in _reads_and_binds(out[n])[0] - ({target} if _outside_random(unroller, out[n]) == target
                                                         else set()) for n in others):
            continue
        between = [n for n in range(k + 1, j) if n not in moved]
        if any((reads | {target}) & _reads_and_binds(out[n])[1] for n in between):
            continue
        moved.append(k)
    return sorted(moved)


def adoptable_calls(unroller, body) -> set[cst.Call]:
    """The random-op calls of a function's block (not yet rewritten) that will move into a ``with pipe:``
    block: the unroller leaves them unmarked (in the pipeline they get batch_size=batch_size)."""
    out, found = list(body), set()
    for i, statement in enumerate(out):
        if statement in unroller.ctx.kept_statements or _pipeline_assign(unroller, statement) is None:
            continue
        name = _pipeline_assign(unroller, statement)[0]
        j = next((k for k in range(i + 1, len(out)) if _with_of(out[k], name)), None)
        if j is not None:
            found.update(out[k].body[0].value for k in _adoptable(unroller, out, i, j))
    return found


def _adopt_outside_nodes(unroller, out, i, j):
    """Random ops assigned in the same function before ``with pipe:`` (before or after ``pipe = Pipeline(...)``)
    and read only inside it become the block's first statements. Pipeline mode made them part of the
    pipeline's graph (a DataNode built outside any pipeline joins the one whose outputs reach it), so they
    drew new values for each sample of each run() at the pipeline's batch size, and with its seed: moved
    into the block, the generator draws them the same way (batch_size=batch_size). A statement moves only
    when nothing else in the function reads its name, nothing between it and the block rebinds its name or
    the names its arguments read, so the block sees the same values. Returns the new (out, i, j)."""
    moved = _adoptable(unroller, out, i, j)
    if not moved:
        return out, i, j
    with_statement = out[j]
    for k in moved:
        unroller.report(rules.UNROLL.id, f"{_outside_random(unroller, out[k])} = ... moves into the generator: "
                        f"pipeline mode ran it in the pipeline's graph, once per run() at its batch size", out[k])
    moving = [out[k] for k in moved]  # blank lines above the first one separated it from code outside
    moving[0] = moving[0].with_changes(leading_lines=[line for line in moving[0].leading_lines if line.comment])
    adopted = with_statement.with_changes(body=with_statement.body.with_changes(
        body=[*moving, *with_statement.body.body]))
    out = [adopted if n == j else s for n, s in enumerate(out) if n not in moved]
    return out, i - sum(1 for k in moved if k < i), j - len(moved)


def _mark_unadopted(unroller, out):
    """Random ops the unroller left unmarked for a move that did not happen (the pipeline stayed in pipeline
    mode, or the block changed): marked as any op outside a pipeline is."""
    from .model import fn_path, op_entry

    for n, statement in enumerate(out):
        if _outside_random(unroller, statement) is not None and statement not in unroller.ctx.kept_statements \
                and statement.body[0].value in unroller.unmarked_randoms:  # (a kept unit's statement: as it was)
            current = op_entry(fn_path(unroller.ctx.imports, statement.body[0].value.func))[0]
            out[n] = _marked(unroller, statement, rules.RANDOM_OUTSIDE.id, f"ndd.{current} {rules.NO_BATCH_SIZE}")
    return out


def _marked(unroller, statement, rule_id, message):
    unroller.ctx.report(rule_id, message, statement, fixed=False)
    if has_marker(statement, rule_id):
        return statement
    return statement.with_changes(leading_lines=[*statement.leading_lines,
                                                 cst.EmptyLine(comment=cst.Comment(marker_text(rule_id, message)))])


def _bound_now(unroller, call, with_statement, name) -> list[str]:
    """Names the pipeline reads from around it, in first-use order: the pipeline bound their values when
    it was defined, a generator reads them at its first next(): passed as arguments, they are bound now."""
    from .statement_facts import _reads_and_binds

    reads: list[str] = []
    assigned: set[str] = set()
    for node in [call, *with_statement.body.body]:
        found, binds = _reads_and_binds(node) if not isinstance(node, cst.Call) else (
            _reads_and_binds(cst.Expr(node))[0], set())
        for n in sorted(found, key=lambda n: code_of(node).find(n)):
            if n not in reads and n not in assigned:
                reads.append(n)
        assigned |= binds
    imported = set(unroller.ctx.imports.aliases)
    symbols = unroller.ctx.facts.get("module_symbols")
    defined = symbols.functions() if symbols is not None else set()
    import builtins
    return [n for n in reads if n not in imported and n not in defined and not hasattr(builtins, n)
            and n != name.split(".")[0] and n not in assigned]


def _bound_around(body, name: str, function: cst.FunctionDef | None = None) -> set[str]:
    """The names a function (or the module) binds in ``body`` outside its ``with name:`` blocks, its parameters
    too: what such a block reads from around it (``graph._steps_start_from_outside``). A nested function or class
    binds its own name there, not what its body binds."""
    bound, defined = AssignedNames(), set()

    def keep(node):
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            defined.add(node.name.value)
            return False
        return not _with_of(node, name)

    for statement in body:
        walk(statement, bound, keep=keep)
    if function is not None:
        params = function.params
        every = [*params.posonly_params, *params.params, *params.kwonly_params]
        every += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
        defined |= {param.name.value for param in every}
    return bound.names | defined


def _used_options(unroller, desc: PipelineDesc, env) -> tuple[tuple, cst.BaseStatement | None]:
    """The pipeline options the generator written for a ``with pipe:`` block takes (only the generated binding
    calls it, with no options), and the statement that grows the thread pool to a literal num_threads:

    * ``num_threads`` stays a parameter only when the Pipeline got a computed value; a literal above 1 grows
      the pool (never shrinking it) with that number, 1 or none needs nothing;
    * ``device_id`` where the Pipeline got one that is not a literal None/0 (the generator runs its steps on
      that GPU, ``generator_code.device_statement``; its default is the Pipeline's argument, evaluated where the
      Pipeline was created);
    * ``seed`` where the readers or RNG objects read it, or ``set_seed`` gets a seed the Pipeline was given;
      without one, pipeline mode drew a seed at random, and so does the migration (no ``set_seed``)."""

    config = desc.config
    core, grow = ["batch_size"], None
    computed, count = threads_plan([config.get("num_threads")])
    if computed:
        core.append("num_threads")
    elif count > 1:
        grow = grow_statement(count)
    names, outside_seeding = generator_names(desc, env)
    if takes_seed(desc, names, outside_seeding, unroller.d.rng_mode):
        core.append("seed")
    if "device_id" in names or takes_device(config):
        core.append("device_id")
    return tuple(o for o in CORE if o in core), grow


def _unroll_one(unroller, name, call, with_statement, module_level, in_loop=False, around=(), key=None):
    config = pipeline_call_config(call)
    unroller._check_config(name, config, with_statement)
    statements = list(with_statement.body.body)
    graph = graph_statements(statements, name, unroller.ctx.imports)
    if graph is None:
        handed = _handed_on(with_statement, name)
        if handed is not None:  # the outputs are likely set there: say so, rather than only what is missing
            raise CannotUnroll(f"`with {name}:` does not end with {name}.set_outputs(...): it hands {name} to "
                               f"{code_of(handed.func)}(...), and the tool does not follow a pipeline into another "
                               f"function to find where its outputs are set", with_statement)
        raise CannotUnroll(f"`with {name}:` does not end with {name}.set_outputs(...)", with_statement)
    desc = PipelineDesc(name=name, style="with", node=with_statement, config=config)
    if module_level:
        desc.extra["outside_names"] = _bound_around(around, name)
    elif unroller._functions:
        desc.extra["outside_names"] = _bound_around(unroller._functions[-1].body.body, name, unroller._functions[-1])
    env = unroller._env()
    if graph[1] is None:
        unroller.report(rules.UNROLL.id, f"`with {name}:` ends with `if {code_of(statements[-1].test)}:` and "
                        f"{name}.set_outputs(...) in each branch: each branch yields its outputs (the condition "
                        f"was decided when the graph was defined)", statements[-1])
    build_graph(desc, *graph, env, closing=statements[-1] if graph[1] is not None else None)
    unroller.descs[name] = desc
    key = key or ".".join(unroller._scope) + ":" + name  # (the origin of a Pipeline made in another method: given)
    desc.extra["origin"] = key
    unroller.d.pipe_vars[key] = ("with", name, call)
    plan = unroller.with_checkpoint.get(key)
    if plan is not None and "reason" in plan:
        desc.extra["checkpoint_unmigrated"] = plan["reason"]
    elif plan is not None:
        desc.extra["checkpoint"] = True
        for reader in desc.readers:
            reader.call = checkpoints.reader_call(reader.call)
    function_name = name.split(".")[-1] + "_steps"
    unroller.migrated_origin(function_name, key)
    unroller.report(rules.UNROLL.id, f"`with {name}:` -> generator {function_name}(); {name} = "
                    f"{function_name}() yields one step per {name}.run()", with_statement)
    unroller._report_config(desc, with_statement)
    desc.extra["epochs"] = unroller.restarts(key, desc)
    # readers created under build-time conditions count too: the stream lists whichever was made
    streamed = key in unroller.streamed and (desc.readers or desc.extra.get("conditional_readers")
                                             or eager_sources(desc)) or desc.extra["epochs"]
    if streamed:
        desc.readers = unroller.readers_for_stream(desc, env)
    pre_count = len(desc.pre) + len(rng_statements_after_pre(desc))  # (loop_statements put them after pre)
    if desc.extra["epochs"]:
        once, steps = epoch_statements(desc, env)
        pre_count = len(once)
        steps = once + steps
    else:
        steps = loop_statements(desc, env)
    if desc.extra.get("checkpoint"):
        objects = checkpoints.stateful_objects(desc, unroller.d.rng_mode, _uses_name(desc, "rng"))
        steps[-1:-1] = checkpoints.registration(desc, objects)
    core, grow = _used_options(unroller, desc, env)
    threads = [thread_statement("num_threads")] if "num_threads" in core else [grow] if grow is not None else []
    head = [*threads, *seeding_statements(desc, env, config.get("seed"))]
    decorators = unroller.prefetch_decorators(desc, with_statement)
    device = unroller.device_of(desc) if "device_id" in core else None
    if streamed:
        body, decorators = unroller.stream_body(desc, env, head, steps, pre_count, decorators, with_statement,
                                                device)
    elif device is not None:
        body = [device_statement(device, head + steps, unroller.ctx)]
    else:
        body = head + steps
    free = _bound_now(unroller, call, with_statement, name) if in_loop else []
    params = add_core_params(cst.Parameters(params=[cst.Param(cst.Name(n)) for n in free]), config, free, core)
    if desc.extra.get("checkpoint"):
        param = checkpoints.none_param()
        if plan.get("default"):  # a factory forwards its own parameter
            param = param.with_changes(default=cst.Name(plan["default"]))
        params = params.with_changes(kwonly_params=[*params.kwonly_params, param])
    if free:
        unroller.report(rules.UNROLL.id, f"`with {name}:` inside a loop: {', '.join(free)} passed to {function_name}() "
                        f"so that each generator keeps the values of this iteration, as the pipeline did", with_statement)
    blank = [cst.EmptyLine(), cst.EmptyLine()] if module_level else []
    function = cst.FunctionDef(name=cst.Name(function_name), params=params, body=cst.IndentedBlock(body),
                               decorators=decorators, leading_lines=blank)
    if desc.extra.get("checkpoint") and not plan.get("factory"):
        var = checkpoints.checkpoint_var(name)
        binding = checkpoints.with_binding(name, f"{function_name}({', '.join([*free, f'checkpoint={var}'])})",
                                           plan.get("saved"))
        unroller.report(rules.CHECKPOINT_MIGRATED.id, f"{name} gets {var} = ndd.checkpoint.Checkpoint()" + (
            " loaded from the saved state" if len(binding) == 3 else ""), with_statement)
        if len(binding) == 3:
            unroller.report(rules.CHECKPOINT_DIFFERENCE.id, f"{name}: checkpoint={code_of(plan['saved'])} must now "
                            f"hold an ndd checkpoint (the JSON string {var}.serialize() returns); pipeline checkpoints "
                            f"(protobuf bytes) do not load into ndd.checkpoint.Checkpoint", with_statement)
        binding[0] = binding[0].with_changes(leading_lines=blank)
        return [function, *binding]
    bind = stmt(f"{name} = {function_name}({', '.join(free)})\n").with_changes(leading_lines=blank)
    return [function, bind]


__all__ = ["unroll_with_blocks", "CORE", "literal_value"]
