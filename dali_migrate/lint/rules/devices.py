"""Devices: ``device="mixed"`` (DM301) and ``.cpu()`` right before ``.torch()`` for a GPU consumer (DM315)."""

from __future__ import annotations

import libcst as cst

from ..core import HEADER, check, lint_rule, method_call

MIXED_DEVICE = lint_rule(
    "DM301", "mixed-device", "error",
    'device="mixed" on a dynamic-mode call; dynamic mode spells it device="gpu".',
    '"mixed" is a pipeline-mode concept; ndd rejects it with ValueError: Invalid device type: mixed. '
    'device="gpu" runs the same hardware-accelerated decoding (ndd picks the mixed backend itself).',
    before=HEADER + 'images = ndd.decoders.image(jpegs, device="mixed")\n',
    after=HEADER + 'images = ndd.decoders.image(jpegs, device="gpu")\n',
    fix="safe",
)

CPU_BEFORE_TORCH = lint_rule(
    "DM315", "cpu-before-torch", "warning",
    ".cpu() right before .torch() when the torch tensor goes to the GPU anyway.",
    ".torch() gives a GPU tensor directly for GPU data; .cpu() first costs a device-to-host copy and "
    "the .cuda()/.to('cuda') afterwards a host-to-device copy back. For CPU data .cpu() is a no-op, "
    "so dropping it never changes the values or the final device.",
    before=HEADER + "logits = model(images.cpu().torch().cuda())\n",
    after=HEADER + "logits = model(images.torch().cuda())\n",
    fix="safe",
)


def _is_mixed(expr) -> bool:
    return isinstance(expr, cst.SimpleString) and expr.evaluated_value == "mixed"


@check
def mixed_device(ctx) -> None:
    for call in ctx.nodes_of(cst.Call):
        if ctx.ndd_path(call.func) is None:
            continue
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "device" and _is_mixed(arg.value):
                ctx.report(MIXED_DEVICE.id, arg.value,
                           'device="mixed" is rejected by dynamic mode (ValueError); use device="gpu"',
                           fix=lambda s: s.with_changes(value=s.value.replace("mixed", "gpu")))


def _goes_to_gpu(ctx, torch_call) -> bool:
    parent = ctx.parent(torch_call)
    if not isinstance(parent, cst.Attribute) or parent.value is not torch_call:
        return False
    call = ctx.parent(parent)
    if not isinstance(call, cst.Call) or call.func is not parent:
        return False
    if parent.attr.value == "cuda":
        return True
    if parent.attr.value == "to" and call.args:
        target = call.args[0].value
        if isinstance(target, cst.SimpleString):
            return str(target.evaluated_value).startswith("cuda")
        if isinstance(target, cst.Call) and target.args and isinstance(target.args[0].value, cst.SimpleString):
            name = ctx.imports.qualname(target.func)
            return name == "torch.device" and str(target.args[0].value.evaluated_value).startswith("cuda")
    return False


@check
def cpu_before_torch(ctx) -> None:
    for call in ctx.nodes_of(cst.Call):
        inner, _ = method_call(call, "torch")
        if inner is None:
            continue
        receiver, _ = method_call(inner, "cpu")
        if receiver is None or inner.args:
            continue
        if _goes_to_gpu(ctx, call):
            ctx.report(CPU_BEFORE_TORCH.id, inner,
                       ".cpu() before .torch() for a GPU consumer copies device->host->device; "
                       "call .torch() directly",
                       fix=lambda node: node.func.value)
