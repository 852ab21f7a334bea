"""The code of a migrated pipeline's generator, written from its description (``PipelineDesc``) and shared by
every style (``@pipeline_def``, ``with pipe:``, Pipeline subclasses).

What runs once before any step: the thread pool grown to the pipeline's num_threads (``thread_statement``,
``grow_statement``), the seed or the RNG objects (``seeding_statements``, ``rng_statements_after_pre``), the steps run
on the pipeline's GPU (``device_statement``). Then the readers, created once, and the endless step loop
(``loop_statements``: ``while True`` around ``next_epoch`` keeps pipe.run()'s stream; several readers are zipped,
each an ``endless_function`` stream), or one epoch of a source that ends (``epoch_statements``).
"""

from __future__ import annotations

import libcst as cst

from ...walk import walk
from ...names import free_name
from . import sources
from .model import AssignedNames, NameReads, PipelineDesc, code_of, expr, literal_value, stmt, target_names
from .step_calls import Env
from .outputs import _yield_statements


def grow_statement(count: int) -> cst.BaseStatement:
    """``thread_statement`` for a thread count known when migrating (a literal): grow to it, never shrink."""
    return stmt(f"if ndd.get_num_threads() < {count}:\n"
                f"    ndd.set_num_threads({count})  # grow only: shrinking it after use hangs DALI 2.4\n")


def thread_statement(num_threads: str) -> cst.BaseStatement:
    """Grow the process-wide CPU pool to the pipeline's num_threads, never shrink it: in DALI 2.4.0 a
    smaller set_num_threads after CPU work hangs the next CPU operator (docs/dali-facts.md), and a
    program often runs a training pipeline and then a validation one with fewer threads. The thread
    count changes speed only, never results."""
    return stmt(f"if {num_threads} is not None and {num_threads} > ndd.get_num_threads():\n"
                f"    ndd.set_num_threads({num_threads})  # grow only: shrinking it after use hangs DALI 2.4\n")


def takes_device(config) -> bool:
    """The pipeline was given a ``device_id`` that is not a literal ``None`` or ``0`` (a variable, an
    expression, another GPU): its generator selects that device itself (``device_statement``)."""
    value = config.get("device_id")
    return value is not None and literal_value(value) not in (None, 0)


def device_statement(device_id: str, body: list, ctx) -> cst.With:
    """``body`` run on the pipeline's GPU, as pipeline mode ran everything of a pipeline built with
    ``device_id=k`` on GPU ``k``: ``with ndd.Device("gpu", k)`` makes ``k`` the current CUDA device of the
    thread that runs the generator (the Prefetch thread, too) for all of its work: reader creation,
    ``next_epoch``'s EvalContext (the thread's default context of the current device) and every op
    given ``device="gpu"``. ``device_id`` None at run time (a CPU-only run) selects nothing, as before:
    ``ndd.Device("gpu", None)`` would ask CUDA for its current device and raise without a GPU
    (docs/dali-facts.md). ``ndd.Device`` creates no thread pool, stream or executor thread (an
    ``EvalContext`` would), so the pool ``ndd.set_num_threads`` grew stays the one in use."""
    from ..imports import request_import

    request_import(ctx, "contextlib", "import contextlib")
    head = stmt(f'with ndd.Device("gpu", {device_id}) if {device_id} is not None else contextlib.nullcontext():\n'
                f'    pass\n')
    return head.with_changes(body=cst.IndentedBlock(list(body) or [cst.SimpleStatementLine([cst.Pass()])]))


def seeding_statements(desc: PipelineDesc, env: Env, seed_default) -> list[cst.BaseStatement]:
    """set_num_threads, the seed or RNGs, per-op RNGs: what runs once before any step."""
    out: list[cst.BaseStatement] = []
    uses_default = desc.has_random and (env.rng_mode or not desc.rngs or True)
    if env.rng_mode:
        if _uses_name(desc, f"{env.prefix}rng"):
            out.append(stmt(f"{env.prefix}rng = ndd.random.RNG(seed={env.seed})\n"))
    elif uses_default and desc.has_random and not desc.extra.get("unseeded"):
        value = literal_value(seed_default)
        if isinstance(value, int) and not isinstance(value, bool) and value != -1:
            out.append(stmt(f"ndd.random.set_seed({env.seed})\n"))
        else:
            out.append(stmt(f"if {env.seed} is not None:\n    ndd.random.set_seed({env.seed})\n"))
    late = late_rngs(desc)
    for name, seed in desc.rngs:
        if name not in late:
            out.append(_rng_statement(desc, name, seed))
    return out


def _rng_statement(desc: PipelineDesc, name: str, seed) -> cst.BaseStatement:
    """``rng_1 = ndd.random.RNG(seed=S)``, or for a call made at each pass of ``for i in range(n)`` (``_passes``)
    one RNG per pass: ``rng_1 = [ndd.random.RNG(seed=S) for i in range(n)]`` (S may read i, as each operator's did)."""
    passes = desc.extra.get("rng_passes", {}).get(name)
    if passes is None:
        return stmt(f"{name} = ndd.random.RNG(seed={code_of(seed)})\n")
    index, count = passes
    return stmt(f"{name} = [ndd.random.RNG(seed={code_of(seed)}) for {index} in range({code_of(count)})]\n")


def late_rngs(desc: PipelineDesc) -> set[str]:
    """The per-op RNGs whose seed reads a name the pipeline body binds once, before its steps
    (``seed = random.randint(...)`` in the body, then ``fn.op(..., seed=seed)``): created after those
    statements (``rng_statements_after_pre``), not with the others before them, where the name would still
    be unbound or be the generator's own ``seed`` parameter."""
    bound = AssignedNames()
    for statement in desc.pre:
        walk(statement, bound)
    late = set()
    for name, seed in desc.rngs:
        reads = NameReads()
        walk(seed, reads)
        passes = desc.extra.get("rng_passes", {}).get(name)
        if passes is not None:
            walk(cst.Expr(passes[1]), reads)
        if reads.names & bound.names:
            late.add(name)
    return late


def rng_statements_after_pre(desc: PipelineDesc) -> list[cst.BaseStatement]:
    late = late_rngs(desc)
    return [_rng_statement(desc, name, seed) for name, seed in desc.rngs if name in late]


def _uses_name(desc: PipelineDesc, name: str) -> bool:
    text = "\n".join(code_of(s) for s in desc.loop) + "".join(code_of(o) for o in desc.outputs)
    import re
    return re.search(rf"\brng={re.escape(name)}\b", text) is not None


def loop_statements(desc: PipelineDesc, env: Env) -> list[cst.BaseStatement]:
    """The reader constructors and the endless step loop (``while True`` keeps pipe.run()'s stream).

    (libcst keeps continuation lines relative to their block, so moved statements stay aligned.)"""
    reader_names = set()
    for spec in desc.readers:
        # Names unpacked from the reader's outputs are one output each; a single name holding all of
        # them (`outs = fn.readers.file(...)`) is a list of outputs, decided when it runs.
        if isinstance(spec.target, (cst.Tuple, cst.List)):
            reader_names |= set(target_names(spec.target))
    yields = [] if desc.extra.get("yields_in_steps") else _yield_statements(
        desc.outputs, [*desc.pre, *desc.loop], reader_names, desc.extra.get("returned_kinds"), desc.style == "class")
    closing = desc.extra.get("closing_comments")
    if closing and yields:
        yields[0] = yields[0].with_changes(leading_lines=[*closing, *yields[0].leading_lines])
    body = [*desc.loop, *yields]
    out: list[cst.BaseStatement] = [*desc.pre, *rng_statements_after_pre(desc)]
    reader = desc.readers[0] if desc.readers else None
    for spec in desc.readers:
        out.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(_target(spec.var))], spec.call)],
                                           leading_lines=spec.comments))
    out.extend(desc.extra.get("source_setup", []))
    looped = desc.extra.get("source_loop")
    if looped is not None:  # a reader-less pipeline fed by one generator or iterable: loop over it
        loop = cst.For(target=looped.target, iter=sources.loop_iterable(looped), body=cst.IndentedBlock(body))
        out.append(cst.While(test=cst.Name("True"), body=cst.IndentedBlock([loop])) if looped.cycles else loop)
        return out
    if reader is None:
        out.append(cst.While(test=cst.Name("True"), body=cst.IndentedBlock(body)))
        return out
    if len(desc.readers) > 1:
        return out + _zipped_readers(desc, env, body)
    inner = cst.For(target=reader.target,
                    iter=expr(f"{reader.var}.next_epoch(batch_size={env.batch_size})"),
                    body=cst.IndentedBlock(body))
    out.append(cst.While(test=cst.Name("True"), body=cst.IndentedBlock([inner])))
    return out


def epoch_statements(desc: PipelineDesc, env: Env) -> tuple[list, list]:
    """(once, steps) of a reader-less pipeline whose external source ends an epoch, written as a ReaderStream that
    restarts its steps on reset(): ``once`` is what the pipeline's definition did (the statements before the
    loop, and the source's iterator: pipeline mode calls iter(source) once, when the pipeline is defined), and
    ``steps`` is one epoch, pulling each source until it raises StopIteration (VERIFIED, docs/dali-facts.md)."""
    specs = [spec for _, _, spec in desc.extra["source_slots"]]
    loop = list(desc.loop)
    for start, end, spec in reversed(desc.extra["source_slots"]):
        loop[start:end] = sources.pull_statements(spec, env.batch_size, epochs=True)
    yields = [] if desc.extra.get("yields_in_steps") else _yield_statements(
        desc.outputs, [*desc.pre, *loop], known=desc.extra.get("returned_kinds"), lists=desc.style == "class")
    closing = desc.extra.get("closing_comments")
    if closing and yields:
        yields[0] = yields[0].with_changes(leading_lines=[*closing, *yields[0].leading_lines])
    once = [*desc.pre, *rng_statements_after_pre(desc), *[s for spec in specs for s in sources.once_statements(spec)]]
    rebound = [name for name in map(sources.rebound, specs) if name]
    steps = [stmt(f"nonlocal {', '.join(rebound)}\n")] if rebound else []
    steps += [s for spec in specs for s in sources.counter_statements(spec)]
    steps.append(cst.While(test=cst.Name("True"), body=cst.IndentedBlock([*loop, *yields])))
    return once, steps


def _zipped_readers(desc: PipelineDesc, env: Env, body) -> list[cst.BaseStatement]:
    """Several readers: each is its own endless stream, epoch after epoch (what repeated pipe.run() read
    from it, its epoch ending where its data does), and the steps zip them."""
    taken = set(desc.params)
    for statement in [*desc.pre, *desc.loop]:
        reads = NameReads()
        walk(statement, reads)
        taken |= reads.names
    endless = desc.extra.get("endless") or free_name("endless", taken)  # (defined already for conditional readers)
    helper = [] if "endless" in desc.extra else [
        endless_function(endless, env.batch_size).with_changes(leading_lines=[cst.EmptyLine(indent=False)])]
    targets = cst.Tuple([cst.Element(parenthesized(spec.target)) for spec in desc.readers], lpar=[], rpar=[])
    streams = ", ".join(f"{endless}({spec.var})" for spec in desc.readers)
    loop = cst.For(target=targets, iter=expr(f"zip({streams})"), body=cst.IndentedBlock(body),
                   leading_lines=[cst.EmptyLine(indent=False)])
    return [*helper, loop]


def endless_function(name: str, batch_size: str) -> cst.BaseStatement:
    """``def endless(reader)``: one reader's batches, epoch after epoch (several readers are zipped over it)."""
    return stmt(f"def {name}(reader):  # one reader's batches, epoch after epoch, as pipe.run() read them\n"
                f"    while True:\n        yield from reader.next_epoch(batch_size={batch_size})\n")


def parenthesized(target):
    """``(a, b)`` for an unparenthesized ``a, b`` target: zip's targets nest."""
    if isinstance(target, cst.Tuple) and not target.lpar:
        return target.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return target


def _target(var: str) -> cst.BaseAssignTargetExpression:
    return expr(var)  # a Name or self.attr
