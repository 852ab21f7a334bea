"""Checkpoints: register readers before their first epoch (DM316), and with checkpointing on (DM317)."""

from __future__ import annotations

import libcst as cst

from ..core import HEADER, check, code, lint_rule, method_call, same_variable, single_binding
from ...dataflow import keyword

_RESTORE = HEADER + ("reader = ndd.readers.File(file_root=\"images\", enable_checkpointing=True)\n"
                     "ckpt = ndd.checkpoint.Checkpoint()\nckpt.load(\"ckpt_{seq:04d}.json\")\n")

REGISTER_LATE = lint_rule(
    "DM316", "checkpoint-register-late", "error",
    "A reader is registered with a loaded checkpoint after its first next_epoch().",
    "Registering applies the loaded state, and a reader's state can only be set before iteration "
    "begins (its prefetch thread has started): RuntimeError: Cannot set the reader's state after "
    "iteration has begun (verified on 2.4.0; get_metadata() counts as iteration too).",
    before=_RESTORE + "for jpegs, labels in reader.next_epoch(batch_size=4):\n    break\n"
                      "ckpt.register(reader, \"reader\")\n",
    after=_RESTORE + "ckpt.register(reader, \"reader\")\nfor jpegs, labels in reader.next_epoch(batch_size=4):\n"
                     "    break\n",
    fix="manual",
    line=7,
    suggestion="Create the reader, load the checkpoint and register the reader before the first next_epoch().",
)
RESTORE_WITHOUT_CHECKPOINTING = lint_rule(
    "DM317", "restore-without-checkpointing", "error",
    "A reader built without enable_checkpointing=True is registered with a checkpoint after it was iterated.",
    "Without enable_checkpointing the backend keeps no state snapshots once iteration starts, so "
    "registering the reader then raises RuntimeError: The operator ... was initialized with "
    "checkpointing disabled (verified on 2.4.0; registering before the first epoch turns it on by "
    "itself). enable_checkpointing=True at construction is what the registration asks for.",
    before=HEADER + "reader = ndd.readers.File(file_root=\"images\")\n"
                    "for jpegs, labels in reader.next_epoch(batch_size=4):\n    pass\n"
                    "ckpt = ndd.checkpoint.Checkpoint()\nckpt.register(reader, \"reader\")\n",
    after=HEADER + "reader = ndd.readers.File(file_root=\"images\", enable_checkpointing=True)\n"
                   "for jpegs, labels in reader.next_epoch(batch_size=4):\n    pass\n"
                   "ckpt = ndd.checkpoint.Checkpoint()\nckpt.register(reader, \"reader\")\n",
    fix="safe",
    line=6,
)

_ITERATION = ("next_epoch", "get_metadata")


def _registrations(ctx):
    """(register call, checkpoint expr, reader Name) for ``C.register(R, ...)`` with known kinds."""
    for call in ctx.nodes_of(cst.Call):
        ckpt, _ = method_call(call, "register")
        if ckpt is None or not call.args or ctx.kind(ckpt) != "ckpt":
            continue
        reader = call.args[0].value
        if isinstance(reader, cst.Name) and ctx.kind(reader) == "reader":
            yield call, ckpt, reader


def _first_iteration(ctx, reader, before_line):
    for call in ctx.nodes_of(cst.Call):
        receiver, method = method_call(call)
        if method in _ITERATION and same_variable(ctx, receiver, reader) and ctx.line(call) < before_line:
            return call
    return None


def _is_restored(ctx, ckpt) -> bool:
    for call in ctx.nodes_of(cst.Call):
        receiver, method = method_call(call)
        if method in ("load", "deserialize", "set_state") and same_variable(ctx, receiver, ckpt):
            return True
    return False


@check
def register_late(ctx) -> None:
    for call, ckpt, reader in _registrations(ctx):
        first = _first_iteration(ctx, reader, ctx.line(call))
        if first is None or not _is_restored(ctx, ckpt):
            continue
        ctx.report(REGISTER_LATE.id, call,
                   f"{code(reader)} was already iterated (line {ctx.line(first)}): the loaded state cannot be "
                   f"applied now (RuntimeError); register it before the first next_epoch()")


@check
def restore_without_checkpointing(ctx) -> None:
    for call, ckpt, reader in _registrations(ctx):
        ctor = single_binding(ctx, reader)
        if not isinstance(ctor, cst.Call) or ctx.kind(ctor) != "reader":
            continue
        flag = keyword(ctor, "enable_checkpointing")
        if flag is not None and not (isinstance(flag.value, cst.Name) and flag.value.value == "False"):
            continue
        first = _first_iteration(ctx, reader, ctx.line(call))
        if first is None:
            continue  # registering before the first epoch turns checkpointing on by itself
        fix = None
        if flag is None:
            def fix(node):
                args = list(node.args)
                if args:
                    args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                return node.with_changes(args=[*args, cst.Arg(
                    cst.Name("True"), keyword=cst.Name("enable_checkpointing"),
                    equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                          whitespace_after=cst.SimpleWhitespace("")))])
        ctx.report(RESTORE_WITHOUT_CHECKPOINTING.id, call,
                   f"{code(reader)} was built without enable_checkpointing=True (line {ctx.line(ctor)}) and "
                   f"iterated (line {ctx.line(first)}) before this register(): RuntimeError; pass "
                   f"enable_checkpointing=True to the constructor", fix=fix, fix_node=ctor)
