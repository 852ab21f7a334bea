"""Execution: ``.evaluate()`` after every op (DM314), ``compile=`` vs ``capture=`` (DM318)."""

from __future__ import annotations

import libcst as cst

from ... import derive
from ..core import HEADER, check, code, function_scope_node, is_op_call_or_data, lint_rule, method_call

EVALUATE_EVERY_OP = lint_rule(
    "DM314", "evaluate-every-op", "info",
    ".evaluate() called after op after op, or right on an op's result (ndd.resize(x, ...).evaluate()).",
    "Consumers (.torch(), np.asarray, .shape, iteration) evaluate by themselves; evaluate() only "
    "forces the work early and returns the same object, so removing it keeps every value. To find "
    "where an error comes from, run the block under `with ndd.EvalMode.sync_full:` instead.",
    before=HEADER + "images = ndd.decoders.image(jpegs).evaluate()\nimages = ndd.resize(images, size=[224, 224])\n"
                    "images.evaluate()\nout = images.torch()\n",
    after=HEADER + "images = ndd.decoders.image(jpegs)\nimages = ndd.resize(images, size=[224, 224])\n"
                   "out = images.torch()\n",
    fix="safe",
)
COMPILE_VS_CAPTURE = lint_rule(
    "DM318", "compile-vs-capture", "error",
    "compile= / .compiled() / ndd.compile where the installed DALI says capture= (or the reverse).",
    "DALI renamed the tracing feature: 2.4.0 has next_epoch(..., capture=False), "
    "ExternalSource.captured() and ndd.capture.invariant; older revisions and docs say compile. The "
    "wrong spelling raises TypeError/AttributeError. The rule reads the installed DALI's next_epoch "
    "signature (falling back to the 2.4.0 spelling when DALI is not importable).",
    before=HEADER + "for jpegs, labels in reader.next_epoch(batch_size=64, compile=True):\n    pass\n",
    after=HEADER + "for jpegs, labels in reader.next_epoch(batch_size=64, capture=True):\n    pass\n",
    fix="safe",
)


def _evaluate_calls(ctx):
    for call in ctx.nodes_of(cst.Call):
        receiver, _ = method_call(call, "evaluate")
        if receiver is not None and not call.args and is_op_call_or_data(ctx, receiver):
            yield call


def _removable_statement(ctx, call):
    """The statement line that is only ``x.evaluate()``, when removing it leaves its block non-empty."""
    expr = ctx.parent(call)
    line = ctx.parent(expr)
    if not (isinstance(expr, cst.Expr) and isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
        return None
    block = ctx.parent(line)
    body = getattr(block, "body", None)
    if not isinstance(body, (list, tuple)) or len(body) < 2:
        return None
    return line


def _on_an_op_call(ctx, call) -> bool:
    """``ndd.op(...).evaluate()``: called right on the op's result, never kept unevaluated."""
    receiver = call.func.value
    return isinstance(receiver, cst.Call) and ctx.ndd_path(receiver.func) is not None


@check
def evaluate_every_op(ctx) -> None:
    by_scope: dict[int, list] = {}
    for call in _evaluate_calls(ctx):
        by_scope.setdefault(id(function_scope_node(ctx, call)), []).append(call)
    for calls in by_scope.values():
        if len(calls) < 2:
            # One evaluate() on a value (a timing point, a sync before a handoff) is fine; on an op's result
            # it only forces what the first read of that value forces anyway.
            calls = [call for call in calls if _on_an_op_call(ctx, call)]
        for call in calls:
            message = f"{code(call.func.value)}.evaluate() is not needed: consumers evaluate by themselves"
            statement = _removable_statement(ctx, call)
            if statement is not None:
                ctx.report(EVALUATE_EVERY_OP.id, call, message,
                           fix=lambda node: cst.RemoveFromParent(), fix_node=statement)
            elif isinstance(ctx.parent(call), cst.Expr):
                ctx.report(EVALUATE_EVERY_OP.id, call, message)
            else:
                ctx.report(EVALUATE_EVERY_OP.id, call, message, fix=lambda node: node.func.value)


@check
def compile_vs_capture(ctx) -> None:
    if ctx.ndd_alias() is None and not any(q.startswith("nvidia.dali.experimental.dynamic")
                                           for q in ctx.imports.aliases.values()):
        return
    spelling, source = derive.trace_spelling()
    right = derive.SPELLINGS[spelling]
    wrong = next(v for k, v in derive.SPELLINGS.items() if k != spelling)
    for call in ctx.nodes_of(cst.Call):
        receiver, method = method_call(call)
        if receiver is None:
            continue
        if method == "next_epoch":
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value == wrong["keyword"]:
                    ctx.report(COMPILE_VS_CAPTURE.id, arg,
                               f"next_epoch() has no {wrong['keyword']}= in the {source}: use {right['keyword']}=",
                               fix=lambda a: a.with_changes(keyword=cst.Name(right["keyword"])), fix_node=arg)
        elif method == wrong["method"] and ctx.kind(receiver) == "external_source":
            ctx.report(COMPILE_VS_CAPTURE.id, call.func,
                       f"ExternalSource has no .{wrong['method']}() in the {source}: use .{right['method']}()",
                       fix=lambda f: f.with_changes(attr=cst.Name(right["method"])))
    for node in ctx.nodes_of(cst.Attribute):
        if ctx.ndd_path(node) == wrong["module"]:
            ctx.report(COMPILE_VS_CAPTURE.id, node,
                       f"ndd.{wrong['module']} does not exist in the {source}: use ndd.{right['module']}",
                       fix=lambda n: n.with_changes(attr=cst.Name(right["module"])))
