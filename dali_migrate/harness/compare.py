"""Per-output, per-sample comparison of pipeline outputs (TensorList) and dynamic-mode outputs (Batch).

Both sides are first turned into a ``Snapshot`` (copies of the samples as numpy arrays plus the
batch-level facts: kind, device, layout), because dynamic-mode outputs may be views that the next
iteration overwrites. Then, per output and sample: shape, dtype, layout (batch-level), device,
values. Integer, bool and other non-float types must match exactly; floats within
``|a-b| <= atol + rtol*|b|`` (numpy's isclose rule, original as reference), and the max absolute
and relative errors are reported either way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class Snapshot:
    kind: str  # "TensorList", "Batch", "Tensor", or the Python type name
    device: str  # "cpu" | "gpu" | ""
    layout: str  # "" when none
    samples: list[np.ndarray] = field(default_factory=list)
    dtype: str = ""  # DALI's name for the element type

    @property
    def batch_size(self) -> int:
        return len(self.samples)


def snapshot_pipeline_output(tl) -> Snapshot:
    device = "gpu" if type(tl).__name__.endswith("GPU") else "cpu"
    cpu = tl.as_cpu() if device == "gpu" else tl
    samples = [np.array(cpu.at(i), copy=True) for i in range(len(cpu))]
    return Snapshot("TensorList", device, cpu.layout() or "", samples, _dali_dtype_name(tl.dtype))


def snapshot_migrated_output(value: Any) -> Snapshot:
    import nvidia.dali.experimental.dynamic as ndd

    if isinstance(value, ndd.Batch):
        device = value.device.device_type
        cpu = value.cpu() if device != "cpu" else value
        samples = [np.array(np.asarray(cpu.select(i)), copy=True) for i in range(cpu.batch_size)]
        return Snapshot("Batch", device, cpu.layout or "", samples, _ndd_dtype_name(value.dtype))
    if isinstance(value, ndd.Tensor):
        device = value.device.device_type
        cpu = value.cpu() if device != "cpu" else value
        return Snapshot("Tensor", device, cpu.layout or "", [np.array(np.asarray(cpu), copy=True)],
                        _ndd_dtype_name(value.dtype))
    return Snapshot(type(value).__name__, "", "", [])


def _dali_dtype_name(dtype) -> str:
    return str(dtype).rsplit(".", 1)[-1]  # DALIDataType.FLOAT -> FLOAT


def _ndd_dtype_name(dtype) -> str:
    try:
        return _dali_dtype_name(dtype.type_id)
    except AttributeError:
        return str(dtype)


@dataclass
class Tolerance:
    atol: float = 1e-5
    rtol: float = 1e-5

    def to_dict(self) -> dict:
        return {"atol": self.atol, "rtol": self.rtol, "rule": "|migrated - original| <= atol + rtol * |original|"}


@dataclass
class Mismatch:
    iteration: int
    output: int
    name: str
    sample: int | None  # None: the whole output (kind, batch size, layout)
    what: str  # kind | batch_size | device | layout | dtype | shape | values | missing
    original: Any = None
    migrated: Any = None
    detail: str = ""

    def to_dict(self) -> dict:
        return {k: _jsonable(v) for k, v in self.__dict__.items()}

    def format(self) -> str:
        where = f"iteration {self.iteration}, output {self.output} ({self.name})"
        if self.sample is not None:
            where += f", sample {self.sample}"
        text = f"{where}: {self.what} {'differ' if self.what == 'values' else 'differs'}"
        if self.original is not None or self.migrated is not None:
            text += f": original {self.original}, migrated {self.migrated}"
        return f"{text}{'; ' + self.detail if self.detail else ''}"


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, (np.integer, np.floating)):
        return value.item()
    return value


@dataclass
class OutputStats:
    """What one output accumulated over all iterations."""

    samples_compared: int = 0
    samples_different: int = 0
    exact: bool = True  # bitwise equal everywhere it was compared
    max_abs_error: float = 0.0
    max_rel_error: float = 0.0
    float_compared: bool = False


def compare_output(iteration: int, index: int, name: str, original: Snapshot, migrated: Snapshot,
                   tol: Tolerance, stats: OutputStats, values: bool = True) -> list[Mismatch]:
    """Compare one output of one iteration; ``values=False`` checks only what randomness cannot change."""
    found: list[Mismatch] = []

    def miss(what, o=None, m=None, sample=None, detail=""):
        found.append(Mismatch(iteration, index, name, sample, what, o, m, detail))

    if migrated.kind != "Batch":
        hint = (" (an input-less op without batch_size= returns one Tensor, broadcast to the whole batch)"
                if migrated.kind == "Tensor" else "")
        miss("kind", "batch (TensorList)", migrated.kind, detail=f"the migrated output is not an ndd.Batch{hint}")
        stats.samples_different += original.batch_size
        stats.exact = False
        return found
    if original.batch_size != migrated.batch_size:
        miss("batch_size", original.batch_size, migrated.batch_size)
    if original.device != migrated.device:
        miss("device", original.device, migrated.device)
    if original.layout != migrated.layout:
        miss("layout", original.layout or "(none)", migrated.layout or "(none)")
    if original.dtype != migrated.dtype:
        miss("dtype", original.dtype, migrated.dtype)
    for s in range(min(original.batch_size, migrated.batch_size)):
        a, b = original.samples[s], migrated.samples[s]
        stats.samples_compared += 1
        before = len(found)
        if not values:
            if a.ndim != b.ndim:
                miss("ndim", a.ndim, b.ndim, s)
        elif a.shape != b.shape:
            miss("shape", tuple(a.shape), tuple(b.shape), s)
        elif a.dtype != b.dtype:
            pass  # already reported at output level (DALI dtype); values of other types are not compared
        else:
            _compare_values(a, b, s, tol, stats, miss)
        if len(found) > before:
            stats.samples_different += 1
    if found:
        stats.exact = False
    return found


def _compare_values(a: np.ndarray, b: np.ndarray, sample: int, tol: Tolerance, stats: OutputStats, miss) -> None:
    if a.size == 0:
        return
    if np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype, np.complexfloating):
        stats.float_compared = True
        # at least 1-d: the difference of two 0-d arrays (scalar samples) is a numpy scalar, not assignable
        a64, b64 = np.atleast_1d(a.astype(np.float64)), np.atleast_1d(b.astype(np.float64))
        nan_a, nan_b = np.isnan(a64), np.isnan(b64)
        diff = np.abs(a64 - b64)
        diff[nan_a & nan_b] = 0.0
        diff[nan_a ^ nan_b] = np.inf
        max_abs = float(diff.max())
        scale = np.abs(a64)
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(diff == 0, 0.0, diff / np.where(scale == 0, np.inf, scale))
            rel = np.where((diff > 0) & (scale == 0), np.inf, rel)
        max_rel = float(rel.max())
        stats.max_abs_error = max(stats.max_abs_error, max_abs)
        stats.max_rel_error = max(stats.max_rel_error, max_rel)
        if max_abs != 0.0:
            stats.exact = False
        bad = diff > tol.atol + tol.rtol * scale
        if bad.any():
            first = tuple(int(i) for i in np.argwhere(bad)[0])
            miss("values", None, None, sample,
                 f"{int(bad.sum())} of {a.size} elements outside tolerance; max abs error {max_abs:.6g}, "
                 f"max rel error {max_rel:.6g}; first at index {first}: original {a[first].item()!r}, "
                 f"migrated {b[first].item()!r}")
    else:
        if not np.array_equal(a, b):
            bad = a != b
            first = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.ndim else ()
            count = int(np.count_nonzero(bad))
            if np.issubdtype(a.dtype, np.number):
                max_abs = float(np.abs(a.astype(np.float64) - b.astype(np.float64)).max())
                stats.max_abs_error = max(stats.max_abs_error, max_abs)
            miss("values", None, None, sample,
                 f"{count} of {a.size} elements differ (exact comparison for {a.dtype}); first at index "
                 f"{first}: original {a[first].tolist()!r}, migrated {b[first].tolist()!r}")
