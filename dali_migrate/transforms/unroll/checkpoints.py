"""Pipeline checkpointing (``enable_checkpointing=True``, ``pipe.checkpoint()``, ``checkpoint=``) ->
``ndd.checkpoint.Checkpoint`` (ndd-facts §8).

The migrated generator takes ``checkpoint=None``, an ``ndd.checkpoint.Checkpoint``. Before its first
``next_epoch`` it registers every reader (created with ``enable_checkpointing=True``) and every RNG by
name; registering into a loaded checkpoint restores them there. The consumer creates the checkpoint::

    pipe = ckpt_pipe(root, checkpoint=saved)      pipe_checkpoint = ndd.checkpoint.Checkpoint()
    pipe.build()                          ->      if saved is not None:
    out = pipe.run()                                  pipe_checkpoint.deserialize(saved)
    state = pipe.checkpoint()                     pipe = ckpt_pipe(root, checkpoint=pipe_checkpoint)
                                                  out = next(pipe)
                                                  pipe_checkpoint.collect()
                                                  state = pipe_checkpoint.serialize()

``state`` is then a JSON string, not the pipeline's protobuf bytes: the two formats do not load into
each other. A restore in the middle of an epoch continues the sample stream (what ``pipe.run()``
gives), but ``next_epoch`` then yields a whole epoch's count of batches from there, so epoch boundaries
move (ndd-facts §8); both are reported.

``Pipeline`` subclasses get the same shape: ``__init__`` takes ``checkpoint=None`` (or keeps the parameter
it forwarded to ``Pipeline(checkpoint=...)``) into ``self.checkpoint``, and ``steps()`` registers the
readers and RNGs before its first ``next_epoch``. A ``with pipe:`` generator ``<pipe>_steps`` takes
``checkpoint=``; a factory that returns it forwards its own ``checkpoint`` parameter (added when missing).
"""

from __future__ import annotations

import libcst as cst

from . import rules
from .model import PipelineDesc, code_of, expr, kwarg, literal_value, stmt, with_kwarg

PARAM = "checkpoint"


def enabled(config) -> bool:
    value = config.get("enable_checkpointing")
    return value is not None and literal_value(value) is not False


def reader_call(call: cst.Call) -> cst.Call:
    if kwarg(call, "enable_checkpointing") is not None:
        return call
    return with_kwarg(call, "enable_checkpointing", cst.Name("True"))


def stateful_objects(desc: PipelineDesc, rng_mode: bool, uses_rng) -> list[tuple[str, str]]:
    """(registration name, expression) for every reader and RNG of the pipeline, in a fixed order."""
    out = []
    for reader in desc.readers:
        out.append((reader.name or reader.var.split(".")[-1], reader.var))
    if desc.has_random:
        if rng_mode:
            if uses_rng:
                out.append(("rng", "rng"))
        else:
            out.append(("rng", "ndd.random.get_default_rng()"))
    for name, _ in desc.rngs:
        out.append((name.split(".")[-1], name))
    return out


def registration(desc: PipelineDesc, objects, holder: str = PARAM) -> list[cst.BaseStatement]:
    """``if checkpoint is not None: checkpoint.register(obj, "name")...``; ``holder`` is where the
    checkpoint lives (``self.checkpoint`` in a migrated class)."""
    if not objects:
        return []
    lines = "".join(f'    {holder}.register({value}, "{name}")\n' for name, value in objects)
    block = stmt(f"if {holder} is not None:\n{lines}")
    comment = cst.EmptyLine(comment=cst.Comment(
        "# checkpointing: readers and RNGs registered by name before the first next_epoch (restored if loaded)"))
    return [block.with_changes(leading_lines=[comment])]


def report_enabled(report, desc: PipelineDesc, node) -> None:
    report(rules.CHECKPOINT_MIGRATED.id, f"{desc.name}: enable_checkpointing -> a {PARAM}= parameter taking an "
           f"ndd.checkpoint.Checkpoint; readers get enable_checkpointing=True and are registered by name with the "
           f"RNGs before the first next_epoch", node)
    report(rules.CHECKPOINT_DIFFERENCE.id, f"{desc.name}: a checkpoint taken in the middle of an epoch restores the "
           f"sample stream, but next_epoch then yields a whole epoch's count of batches from there: epoch "
           f"boundaries move (checkpoint at epoch boundaries for epoch-based consumers)", node)


def checkpoint_var(owner: str) -> str:
    return f"{owner}_checkpoint"


def consumer_statements(unroller, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine,
                        owner: str, saved, param: str = PARAM) -> list[cst.BaseStatement]:
    """``owner = f(..., checkpoint=saved)`` -> create (and load) the ndd checkpoint, then pass it as
    ``param=`` (the parameter that carries it: ``checkpoint`` unless a class forwards another name).
    ``owner = iter(Cls(...))`` (a migrated class) passes it to ``Cls``."""
    var = checkpoint_var(owner)
    assign = updated.body[0]
    call = outer = assign.value
    wrapped = isinstance(call.func, cst.Name) and call.func.value == "iter" and len(call.args) == 1 \
        and isinstance(call.args[0].value, cst.Call)
    if wrapped:
        call = call.args[0].value
    args = [a for a in call.args
            if not (a.keyword is not None and a.keyword.value in (param, "enable_checkpointing"))]
    if args and len(args) < len(call.args):
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    call = with_kwarg(call.with_changes(args=args), param, expr(var))
    if wrapped:
        call = outer.with_changes(args=[outer.args[0].with_changes(value=call)])
    out = [stmt(f"{var} = ndd.checkpoint.Checkpoint()\n").with_changes(leading_lines=updated.leading_lines)]
    if saved is not None and literal_value(saved) is not None:
        out.append(stmt(f"if {code_of(saved)} is not None:\n    {var}.deserialize({code_of(saved)})\n"))
        unroller.report(rules.CHECKPOINT_DIFFERENCE.id, f"{owner}: checkpoint={code_of(saved)} must now hold an ndd "
                        f"checkpoint (the JSON string {var}.serialize() returns); pipeline checkpoints (protobuf bytes) "
                        f"do not load into ndd.checkpoint.Checkpoint", original)
    out.append(updated.with_changes(body=[assign.with_changes(value=call)], leading_lines=[]))
    unroller.report(rules.CHECKPOINT_MIGRATED.id, f"{owner} gets {var} = ndd.checkpoint.Checkpoint()" +
                    (" loaded from the saved state" if len(out) == 3 else ""), original)
    return out


def none_param(name: str = PARAM) -> cst.Param:
    """``name=None``, as a keyword parameter."""
    return cst.Param(cst.Name(name), default=cst.Name("None"),
                     equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                           whitespace_after=cst.SimpleWhitespace("")))


def with_plan(discovery, key: str, config) -> dict:
    """How a checkpointing ``with pipe:`` pipeline (``key`` = "scope:name") gets its checkpoint.

    In a factory that returns it: through the factory parameter forwarded as ``Pipeline(checkpoint=P)``
    (``factory``, ``param``, ``default``), or a new ``checkpoint=None`` (``add_param``). Elsewhere the
    binding ``pipe = pipe_steps(checkpoint=pipe_checkpoint)`` creates (and loads ``saved``) one.
    ``reason`` when it is not migrated."""
    scope = key.split(":", 1)[0]
    saved = config.get("checkpoint")
    factory = next((f for f, k in discovery.factories.items() if k == key), None)
    if factory is not None:
        params = discovery.function_params.get(scope, [])
        if saved is None:
            if PARAM in params:
                return {"reason": f"{factory}() already has a {PARAM} parameter that the pipeline does not get"}
            return {"factory": factory, "param": PARAM, "default": PARAM, "add_param": True}
        if isinstance(saved, cst.Name) and saved.value in params:
            return {"factory": factory, "param": saved.value, "default": saved.value}
        return {"reason": f"Pipeline(checkpoint={code_of(saved)}) is not a parameter of {factory}()"}
    if saved is not None and not isinstance(saved, (cst.Name, cst.Attribute)) and literal_value(saved) is not None:
        return {"reason": f"checkpoint={code_of(saved)} is not a plain name"}
    return {"saved": saved}


def with_binding(name: str, call_code: str, saved) -> list[cst.BaseStatement]:
    """``pipe = pipe_steps()`` -> create (and load) ``pipe_checkpoint``, then pass it."""
    var = checkpoint_var(name)
    out = [stmt(f"{var} = ndd.checkpoint.Checkpoint()\n")]
    if saved is not None and literal_value(saved) is not None:
        out.append(stmt(f"if {code_of(saved)} is not None:\n    {var}.deserialize({code_of(saved)})\n"))
    out.append(stmt(f"{name} = {call_code}\n"))
    return out
