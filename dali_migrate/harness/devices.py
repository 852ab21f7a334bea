"""Run GPU pipelines on a machine without a GPU: map ``mixed``/``gpu`` to ``cpu`` on both sides.

The mapping is a source rewrite done before a file is loaded (libcst, so line numbers stay as
the user wrote them), applied alike to the original and the migrated file, and every change is
reported: a verdict reached on CPU says nothing about the GPU kernels.

* ``device="mixed" | "gpu" | "gpu:N" | "cuda" | "cuda:N"`` (a string literal keyword) -> ``"cpu"``
* ``x.gpu()`` (no arguments) -> ``x``: DataNode.gpu() and Batch/Tensor.gpu() both raise without CUDA
* ``device_id=<expr>`` keyword or parameter default, and the third positional argument of
  ``Pipeline(batch_size, num_threads, device_id)`` -> ``None`` (a pipeline with ``device_id=0``
  refuses to build without CUDA; ``None`` is DALI's CPU-only pipeline)

A device given by a variable (``device=dev``) cannot be mapped by text; it is reported so that a
person knows why the run may still fail.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

_GPU_DEVICES = ("mixed", "gpu", "cuda")


def cuda_device_count() -> int:
    """How many CUDA devices DALI sees (0 on a machine without a GPU or driver)."""
    try:
        from nvidia.dali.backend import GetCUDADeviceCount

        return int(GetCUDADeviceCount())
    except Exception:  # no driver at all: DALI raises instead of answering 0
        return 0


@dataclass
class DeviceMapping:
    side: str  # "original" | "migrated"
    line: int
    before: str
    after: str
    note: str = ""

    def to_dict(self) -> dict:
        return asdict(self)

    def format(self) -> str:
        text = f"{self.side}:{self.line}: {self.before} -> {self.after}"
        return f"{text} ({self.note})" if self.note else text


def _is_gpu_device(value: str) -> bool:
    return value.split(":", 1)[0] in _GPU_DEVICES


class _DeviceToCpu(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, side: str) -> None:
        super().__init__()
        self.side = side
        self.mappings: list[DeviceMapping] = []

    def _line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def _code(self, node: cst.CSTNode) -> str:
        return cst.Module(body=[]).code_for_node(node)

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        keyword = original_node.keyword.value if original_node.keyword else None
        value = original_node.value
        if keyword == "device":
            if isinstance(value, cst.SimpleString):
                text = value.evaluated_value
                if isinstance(text, str) and _is_gpu_device(text):
                    self.mappings.append(DeviceMapping(self.side, self._line(original_node),
                                                       f"device={value.value}", 'device="cpu"'))
                    return updated_node.with_changes(value=cst.SimpleString('"cpu"'))
            elif not isinstance(value, cst.Name) or value.value != "None":
                self.mappings.append(DeviceMapping(
                    self.side, self._line(original_node), f"device={self._code(value)}", "(unchanged)",
                    "a device given by an expression cannot be mapped by text"))
        elif keyword == "device_id" and not (isinstance(value, cst.Name) and value.value == "None"):
            self.mappings.append(DeviceMapping(self.side, self._line(original_node),
                                               f"device_id={self._code(value)}", "device_id=None"))
            return updated_node.with_changes(value=cst.Name("None"))
        return updated_node

    def leave_Param(self, original_node: cst.Param, updated_node: cst.Param) -> cst.Param:
        default = original_node.default
        if original_node.name.value == "device_id" and default is not None and not (
                isinstance(default, cst.Name) and default.value == "None"):
            self.mappings.append(DeviceMapping(self.side, self._line(original_node),
                                               f"device_id={self._code(default)} (default)", "device_id=None"))
            return updated_node.with_changes(default=cst.Name("None"))
        if original_node.name.value == "device" and isinstance(default, cst.SimpleString):
            text = default.evaluated_value
            if isinstance(text, str) and _is_gpu_device(text):
                self.mappings.append(DeviceMapping(self.side, self._line(original_node),
                                                   f"device={default.value} (default)", 'device="cpu"'))
                return updated_node.with_changes(default=cst.SimpleString('"cpu"'))
        return updated_node

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        func = original_node.func
        if _callee_name(func) == "Pipeline":
            updated_node = self._positional_device_id(original_node, updated_node)
        if isinstance(func, cst.Attribute) and func.attr.value == "gpu" and not original_node.args:
            self.mappings.append(DeviceMapping(self.side, self._line(original_node),
                                               f"{self._code(original_node)}", f"{self._code(func.value)}",
                                               ".gpu() dropped"))
            assert isinstance(updated_node.func, cst.Attribute)
            return updated_node.func.value
        return updated_node

    def _positional_device_id(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        """``Pipeline(batch_size, num_threads, device_id, ...)``: the third positional argument."""
        positional = [i for i, arg in enumerate(original_node.args) if arg.keyword is None and not arg.star]
        if len(positional) < 3 or len(positional) != positional[-1] + 1:
            return updated_node  # a *args before it: the position is not known
        index = positional[2]
        value = original_node.args[index].value
        if isinstance(value, cst.Name) and value.value == "None":
            return updated_node
        self.mappings.append(DeviceMapping(self.side, self._line(original_node),
                                           f"Pipeline(..., {self._code(value)}) (device_id)", "device_id=None"))
        args = list(updated_node.args)
        args[index] = args[index].with_changes(value=cst.Name("None"))
        return updated_node.with_changes(args=args)


def _callee_name(func: cst.BaseExpression) -> str | None:
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def map_devices_to_cpu(source: str, side: str) -> tuple[str, list[DeviceMapping]]:
    """Rewrite GPU device requests in ``source`` to CPU; return the new text and what changed."""
    module = cst.parse_module(source)
    transformer = _DeviceToCpu(side)
    new_module = MetadataWrapper(module).visit(transformer)
    return new_module.code, transformer.mappings


def map_call_arguments(args: list, kwargs: dict) -> tuple[list, dict, list[DeviceMapping]]:
    """The same mapping for arguments given on the command line (``--args``)."""
    mappings = []
    kwargs = dict(kwargs)
    if kwargs.get("device_id") is not None:
        mappings.append(DeviceMapping("--args", 0, f"device_id={kwargs['device_id']!r}", "device_id=None"))
        kwargs["device_id"] = None
    if isinstance(kwargs.get("device"), str) and _is_gpu_device(kwargs["device"]):
        mappings.append(DeviceMapping("--args", 0, f"device={kwargs['device']!r}", "device='cpu'"))
        kwargs["device"] = "cpu"
    return list(args), kwargs, mappings
