"""Training-loop throughput: what a user feels when the model works between batches.

The in-process measurement (``throughput.py``) times a consumer that does nothing. A training loop
converts each batch for the framework and then works (a GPU step that leaves the CPU free); pipeline
mode keeps loading meanwhile (``prefetch_queue_depth``), so a migration that loads only when asked
can lose half of the loop's speed while the empty-consumer numbers look fine.

Here each side runs in **its own process** (so neither side's threads, prefetching or memory disturb
the other), one process per measurement, alternating between the sides and rotating their order from
run to run. A process loads the side's file like the harness does, warms up, then times
``iterations`` steps of: take a batch (``pipe.run()`` / ``next(iterator)``), convert every output the
way user code does, sleep ``work_ms``. Reported per work time: samples/s of wall clock and samples
per second of process CPU time (all threads), their medians over the runs, and the ratio of medians
(side / original).

Consumers (``consumer=``):
* ``numpy``: the original ``TensorList.as_array()`` (``as_cpu()`` first on a GPU); the migrated
  ``np.array(ndd.as_tensor(batch))`` (``.cpu()`` first): what the migration writes for ``as_array()``.
* ``torch``: the original as ``DALIGenericIterator`` does it (``feed_ndarray`` into a new torch tensor);
  the migrated ``batch.torch()`` under ``ndd.EvalMode.sync_cpu``, as the migration's ``EpochIterator`` does.

Run a side by hand: ``python -m dali_migrate.harness.training_loop SPEC.json`` prints one JSON line.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

CONSUMERS = ("numpy", "torch")
ORIGINAL = "original"


def parse_work_ms(text: str) -> list[float] | None:
    """``--consumer-ms 0,10,20`` as milliseconds; None unless it is one or more numbers >= 0."""
    try:
        work_ms = [float(w) for w in text.split(",") if w.strip()]
    except ValueError:
        return None
    return work_ms if work_ms and min(work_ms) >= 0 else None


# ------------------------------------------------------------------------------------ in the worker
def _convert_original(output, consumer: str) -> int:
    """Convert one pipeline output (a TensorList) as user code does; returns its batch size."""
    if consumer == "torch":
        import torch
        from nvidia.dali.plugin.pytorch import feed_ndarray, to_torch_type

        dense = output.as_tensor()
        gpu = type(output).__name__.endswith("GPU")
        target = torch.empty(dense.shape(), dtype=to_torch_type[output.dtype],
                             device=torch.device("cuda") if gpu else torch.device("cpu"))
        feed_ndarray(dense, target)
        return len(output)
    cpu = output.as_cpu() if hasattr(output, "as_cpu") and type(output).__name__.endswith("GPU") else output
    if cpu.is_dense_tensor():
        cpu.as_array()
    else:
        for i in range(len(cpu)):
            cpu.at(i)
    return len(output)


def _convert_migrated(output, consumer: str) -> int:
    """Convert one migrated output (an ndd.Batch) as the migrated user code does; returns its batch size."""
    import numpy as np
    import nvidia.dali.experimental.dynamic as ndd

    size = getattr(output, "batch_size", None)
    if size is None:  # a Tensor or a plain value
        if hasattr(output, "torch") and consumer == "torch":
            output.torch()
        elif hasattr(output, "evaluate"):
            np.asarray(output.cpu())
        return 0
    if consumer == "torch":
        with ndd.EvalMode.sync_cpu:  # as the migration's EpochIterator converts
            output.torch()
        return size
    cpu = output.cpu()
    if len({tuple(s) for s in cpu.shape}) <= 1:
        np.array(ndd.as_tensor(cpu))
    else:
        for i in range(size):
            np.asarray(cpu.select(i))
    return size


def _stepper(spec: dict) -> tuple[Callable[[], int], Callable[[], None]]:
    """(one training-loop step that returns its sample count, cleanup) for the side in ``spec``."""
    from .loading import load_module
    from .sides import built_for_timing, migrated_iterator

    text = Path(spec["source_file"]).read_text(encoding="utf-8")
    module = load_module(text, spec["module_path"], spec["kind"])
    consumer = spec["consumer"]
    where = (module, spec["pipeline"], spec["module_path"], spec["args"], spec["kwargs"])
    if spec["kind"] == ORIGINAL:
        pipe = built_for_timing(*where)

        def step() -> int:
            outputs = pipe.run()
            return max([_convert_original(o, consumer) for o in outputs] or [0])

        return step, lambda: None
    iterator, _ = migrated_iterator(*where)

    def step() -> int:
        outputs = next(iterator)
        outputs = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
        return max([_convert_migrated(o, consumer) for o in outputs] or [0])

    def close() -> None:
        close_iterator = getattr(iterator, "close", None)
        if close_iterator is not None:
            close_iterator()

    return step, close


def run_side(spec: dict) -> dict:
    """Warm up, then time ``iterations`` steps of take + convert + ``work_ms`` of sleep; one side, here."""
    step, close = _stepper(spec)
    work_s = spec["work_ms"] / 1000.0
    try:
        for _ in range(spec["warmup"]):
            step()
            time.sleep(work_s)
        samples = 0
        cpu_start, start = time.process_time(), time.perf_counter()
        for _ in range(spec["iterations"]):
            samples += step()
            time.sleep(work_s)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    finally:
        close()
    return {"side": spec["side"], "work_ms": spec["work_ms"], "samples": samples, "wall_s": round(wall, 4),
            "cpu_s": round(cpu, 4), "samples_per_s": round(samples / wall, 2) if wall > 0 else 0.0,
            "samples_per_cpu_s": round(samples / cpu, 2) if cpu > 0 else 0.0}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    spec = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    result = run_side(spec)
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    return 0


# ------------------------------------------------------------------------------------ the driver
@dataclass
class SideSeries:
    """One side at one work time: one entry per run (process)."""

    samples_per_s: list[float] = field(default_factory=list)
    samples_per_cpu_s: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.samples_per_s) if self.samples_per_s else 0.0

    @property
    def median_per_cpu_s(self) -> float:
        return statistics.median(self.samples_per_cpu_s) if self.samples_per_cpu_s else 0.0

    def to_dict(self) -> dict:
        values = self.samples_per_s
        return {"samples_per_s": values, "median": round(self.median, 2),
                "min": min(values) if values else 0.0, "max": max(values) if values else 0.0,
                "samples_per_cpu_s": self.samples_per_cpu_s, "median_per_cpu_s": round(self.median_per_cpu_s, 2)}


@dataclass
class TrainingLoop:
    """Per work time (ms) and side, the runs' samples/s; ratios are side / original, of medians."""

    consumer: str
    runs: int
    warmup: int
    iterations: int
    sides: list[str]
    series: dict[float, dict[str, SideSeries]] = field(default_factory=dict)
    load_average: list[float] = field(default_factory=list)  # 1-minute load average before each run

    def ratio(self, work_ms: float, side: str) -> float:
        base = self.series[work_ms][ORIGINAL].median
        return self.series[work_ms][side].median / base if base else 0.0

    def cpu_ratio(self, work_ms: float, side: str) -> float:
        base = self.series[work_ms][ORIGINAL].median_per_cpu_s
        return self.series[work_ms][side].median_per_cpu_s / base if base else 0.0

    def to_dict(self) -> dict:
        others = [s for s in self.sides if s != ORIGINAL]
        return {
            "consumer": self.consumer, "runs": self.runs, "warmup_iterations": self.warmup,
            "timed_iterations": self.iterations, "sides": self.sides,
            "load_average": {"min": min(self.load_average, default=0.0), "max": max(self.load_average, default=0.0)},
            "work_ms": [{
                "work_ms": work_ms,
                **{side: series.to_dict() for side, series in by_side.items()},
                "ratios": {side: round(self.ratio(work_ms, side), 4) for side in others},
                "cpu_ratios": {side: round(self.cpu_ratio(work_ms, side), 4) for side in others},
            } for work_ms, by_side in self.series.items()],
        }

    def format(self) -> str:
        others = [s for s in self.sides if s != ORIGINAL]
        load = (f"; load average {min(self.load_average):.1f}-{max(self.load_average):.1f}"
                if self.load_average else "")
        lines = [f"training loop ({self.consumer} consumer; samples/s, median of {self.runs} alternating runs in "
                 f"separate processes, {self.iterations} timed steps after {self.warmup} warm-up{load}):"]
        for work_ms, by_side in self.series.items():
            original = by_side[ORIGINAL]
            parts = [f"original {original.median:.1f} [{min(original.samples_per_s):.1f}.."
                     f"{max(original.samples_per_s):.1f}]"]
            for side in others:
                s = by_side[side]
                parts.append(f"{side} {s.median:.1f} [{min(s.samples_per_s):.1f}..{max(s.samples_per_s):.1f}] "
                             f"ratio {self.ratio(work_ms, side):.3f} "
                             f"(per CPU-second {self.cpu_ratio(work_ms, side):.3f})")
            lines.append(f"  work {work_ms:g} ms: " + "; ".join(parts))
        return "\n".join(lines)


class TrainingLoopError(Exception):
    """A side's process failed (its message names the side, the work time and the exit status)."""


def measure_training_loop(sides: dict[str, tuple[str, str]], pipeline: str, args: list | None = None,
                          kwargs: dict | None = None, *, work_ms=(0, 10, 20), runs: int = 3, consumer: str = "numpy",
                          warmup: int = 13, iterations: int = 52, timeout_s: float = 600.0,
                          env: dict | None = None) -> TrainingLoop:
    """Time every side of ``sides`` (label -> (source text, the path it stands for)) in separate processes.

    ``sides`` must hold ``"original"`` (a pipeline-mode file); the others are migrated files. Texts are
    run as given: map devices before calling, as ``verify`` does."""
    if ORIGINAL not in sides:
        raise ValueError("sides must include the original")
    if consumer not in CONSUMERS:
        raise ValueError(f"consumer must be one of {', '.join(CONSUMERS)}")
    labels = list(sides)
    result = TrainingLoop(consumer, runs, warmup, iterations, labels,
                          {float(w): {label: SideSeries() for label in labels} for w in work_ms})
    with tempfile.TemporaryDirectory(prefix="dali-migrate-loop-") as tmp:
        specs = {}
        for n, (label, (text, path)) in enumerate(sides.items()):
            source_file = Path(tmp) / f"side_{n}.py"
            source_file.write_text(text, encoding="utf-8")
            specs[label] = {"side": label, "kind": ORIGINAL if label == ORIGINAL else "migrated",
                            "source_file": str(source_file), "module_path": str(path), "pipeline": pipeline,
                            "args": list(args or []), "kwargs": dict(kwargs or {}), "consumer": consumer,
                            "warmup": warmup, "iterations": iterations}
        for run in range(runs):
            order = labels[run % len(labels):] + labels[:run % len(labels)]  # rotate: no side always first
            for w in result.series:
                for label in order:
                    result.load_average.append(round(os.getloadavg()[0], 2))
                    measured = _run_process({**specs[label], "work_ms": w}, Path(tmp), timeout_s, env)
                    series = result.series[w][label]
                    series.samples_per_s.append(measured["samples_per_s"])
                    series.samples_per_cpu_s.append(measured["samples_per_cpu_s"])
    return result


def _run_process(spec: dict, tmp: Path, timeout_s: float, env: dict | None) -> dict:
    spec_file = tmp / "spec.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    what = f"{spec['side']} side, work {spec['work_ms']:g} ms"
    env = dict(os.environ if env is None else env)
    package_root = str(Path(__file__).resolve().parents[2])  # this dali_migrate, wherever it was imported from
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    try:
        proc = subprocess.run([sys.executable, "-m", "dali_migrate.harness.training_loop", str(spec_file)],
                              capture_output=True, text=True, timeout=timeout_s, env=env)
    except subprocess.TimeoutExpired:
        raise TrainingLoopError(f"{what}: no result within {timeout_s:g} s") from None
    line = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    if proc.returncode != 0 or not line:
        # An exit status other than 0 after a printed result is a failed shutdown (say, an abort at exit
        # while a thread is still inside DALI): a user would see it, so it fails the measurement.
        raise TrainingLoopError(f"{what}: the process exited with status {proc.returncode}"
                                f"{' after printing its result' if line else ''}: {proc.stderr.strip()[-1500:]}")
    return json.loads(line)


if __name__ == "__main__":
    sys.exit(main())
