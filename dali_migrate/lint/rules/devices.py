"""Devices: ``device="mixed"`` (DM301) and ``.cpu()`` right before ``.torch()`` for a GPU consumer or of
GPU data fed to a model (DM315)."""

from __future__ import annotations

import libcst as cst

from ..core import HEADER, check, code, lint_rule, method_call

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
    ".cpu() right before .torch() when the torch tensor goes to the GPU anyway, or when GPU data (from a "
    "device=\"gpu\" op or .gpu()) is copied to the host on its way into a model.",
    ".torch() is a zero-copy DLPack view on the data's own device: a CUDA tensor for GPU data. .cpu() "
    "first costs a device-to-host copy and the .cuda()/.to('cuda') afterwards, or a model on the GPU, a "
    "host-to-device copy back. For CPU data .cpu() is a no-op, so dropping it before .cuda() never "
    "changes the values or the final device (fixed); before a model it is reported only, since a model "
    "on the CPU needs the host copy.",
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


def _is_gpu_device(ctx, call) -> bool:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "device":
            return isinstance(arg.value, cst.SimpleString) and arg.value.evaluated_value in ("gpu", "mixed")
    return False


def _on_gpu(ctx, expr, seen: frozenset = frozenset()) -> bool:
    """``expr`` is DALI data on the GPU: a ``device="gpu"`` op's result, ``x.gpu()``, or an ndd op whose input
    is (an op without ``device=`` runs where its inputs are: ndd-facts.md), seen through plain names whose
    every binding is (``images = ndd.resize(images, ...)`` keeps ``images`` on the GPU)."""
    if isinstance(expr, cst.Name):
        scope = ctx.flow.binding_scope(expr)
        if scope is None:
            return False
        key = (id(scope), expr.value)
        if key in seen:
            return True  # the name's other bindings decide
        sources = scope.bindings.get(expr.value, [])  # ("expr", value) for a plain `name = value`
        return bool(sources) and all(source[0] == "expr" and source[1] is not None
                                     and _on_gpu(ctx, source[1], seen | {key}) for source in sources)
    if not isinstance(expr, cst.Call):
        return False
    receiver, method = method_call(expr)
    if method == "gpu" and not expr.args:
        return True
    if method == "evaluate" and receiver is not None:
        return _on_gpu(ctx, receiver, seen)
    if ctx.ndd_path(expr.func) is None:
        return False
    if any(a.keyword is not None and a.keyword.value == "device" for a in expr.args):
        return _is_gpu_device(ctx, expr)  # device="cpu", or computed: not known to be the GPU
    return any(a.keyword is None and not a.star and _on_gpu(ctx, a.value, seen) for a in expr.args)


def _fed_to_a_model(ctx, torch_call) -> str | None:
    """The callee's text when the torch tensor is passed straight to a call that is not NumPy, torch,
    DALI or a builtin (a model, a loss, a training step), else None."""
    arg = ctx.parent(torch_call)
    call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(call, cst.Call) or arg not in call.args:
        return None
    qualified = ctx.imports.qualname(call.func) or ""
    if qualified.split(".")[0] in ("numpy", "torch", "nvidia", "builtins") or \
            (isinstance(call.func, cst.Name) and call.func.value in _BUILTINS):
        return None
    return code(call.func)


_BUILTINS = frozenset(dir(__import__("builtins")))


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
            continue
        model = _fed_to_a_model(ctx, call) if _on_gpu(ctx, receiver) else None
        if model is not None:
            data = code(receiver)
            ctx.report(CPU_BEFORE_TORCH.id, inner,
                       f"{data} is on the GPU: .cpu().torch() copies it to the host before {model}(...); for a "
                       f"model on the GPU pass {data}.torch() (a CUDA tensor, no copy)")
