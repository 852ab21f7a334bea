"""Throughput of the original pipeline and the migrated code, measured in one process, one run.

Method: build both, warm both up, then alternate timed repeats (original, migrated, original, ...)
so that machine noise (other processes, turbo, caches) falls on both sides alike; the ratio is
``median(migrated) / median(original)`` of samples per second, and the median of the per-pair
ratios is given beside it.

Beside wall-clock throughput, samples per second of process CPU time (all threads) are recorded:
on a machine shared with other work they show how much work each side spends per sample, which
other processes disturb far less than the wall clock.

Prefetching must not be timed as free work: a pipeline (and dynamic mode's ``capture=True``) keeps
computing its prefetch queue in the background after ``run()`` returns. So each repeat first sleeps
briefly (the other side's background work ends off the clock), then takes ``drain`` steps untimed
(the prefetched batches, ready at once), then times ``iterations`` steps in the steady state, where
every step waits for new work. What remains is at most about one iteration of boundary error per
repeat, in favour of the prefetching side; use enough iterations per repeat to make it small.

A migrated step is ``next(iterator)`` plus ``evaluate()`` on every output (dynamic mode is lazy in
its default eager mode); a pipeline step is ``pipe.run()``, which returns finished outputs.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import Callable


@dataclass
class SideTiming:
    samples_per_s: list[float] = field(default_factory=list)  # wall clock
    samples_per_cpu_s: list[float] = field(default_factory=list)  # process CPU time, all threads

    @property
    def median(self) -> float:
        return statistics.median(self.samples_per_s) if self.samples_per_s else 0.0

    def to_dict(self) -> dict:
        values = self.samples_per_s
        med = self.median
        return {
            "samples_per_s": [round(v, 2) for v in values],
            "median": round(med, 2),
            "min": round(min(values), 2) if values else 0.0,
            "max": round(max(values), 2) if values else 0.0,
            "spread": round((max(values) - min(values)) / med, 4) if values and med else 0.0,
            "samples_per_cpu_s": [round(v, 2) for v in self.samples_per_cpu_s],
            "median_per_cpu_s": round(statistics.median(self.samples_per_cpu_s), 2) if self.samples_per_cpu_s else 0.0,
        }


@dataclass
class Throughput:
    warmup_iterations: int
    iterations_per_repeat: int
    repeats: int
    original: SideTiming
    migrated: SideTiming

    @property
    def ratio(self) -> float:
        return self.migrated.median / self.original.median if self.original.median else 0.0

    @property
    def paired_ratios(self) -> list[float]:
        return [m / o for o, m in zip(self.original.samples_per_s, self.migrated.samples_per_s) if o]

    def to_dict(self) -> dict:
        pairs = self.paired_ratios
        return {
            "warmup_iterations": self.warmup_iterations,
            "iterations_per_repeat": self.iterations_per_repeat,
            "repeats": self.repeats,
            "original": self.original.to_dict(),
            "migrated": self.migrated.to_dict(),
            "ratio_migrated_over_original": round(self.ratio, 4),
            "paired_ratios": [round(r, 4) for r in pairs],
            "median_paired_ratio": round(statistics.median(pairs), 4) if pairs else 0.0,
            "cpu_ratio_migrated_over_original": round(self.cpu_ratio, 4),
        }

    @property
    def cpu_ratio(self) -> float:
        """Samples per CPU-second, migrated over original: work per sample, robust to other processes."""
        o = statistics.median(self.original.samples_per_cpu_s) if self.original.samples_per_cpu_s else 0.0
        m = statistics.median(self.migrated.samples_per_cpu_s) if self.migrated.samples_per_cpu_s else 0.0
        return m / o if o else 0.0

    def format(self) -> str:
        o, m = self.original.to_dict(), self.migrated.to_dict()
        return (f"throughput (samples/s, median of {self.repeats} x {self.iterations_per_repeat} iterations, "
                f"after {self.warmup_iterations} warm-up): original {o['median']:.1f} "
                f"[{o['min']:.1f}..{o['max']:.1f}], migrated {m['median']:.1f} [{m['min']:.1f}..{m['max']:.1f}], "
                f"ratio migrated/original {self.ratio:.3f} (per CPU-second: {self.cpu_ratio:.3f})")


def pipeline_stepper(pipe) -> Callable[[], int]:
    def step() -> int:
        outputs = pipe.run()
        return len(outputs[0]) if outputs else 0

    return step


def migrated_stepper(iterator) -> Callable[[], int]:
    def step() -> int:
        outputs = next(iterator)
        if not isinstance(outputs, tuple):
            outputs = (outputs,)
        size = 0
        for out in outputs:
            evaluate = getattr(out, "evaluate", None)
            if evaluate is not None:
                evaluate()
            size = size or getattr(out, "batch_size", 0) or 0
        return size

    return step


def measure(original_step: Callable[[], int], migrated_step: Callable[[], int], *, warmup: int = 3,
            iterations: int = 20, repeats: int = 5, settle_s: float = 0.1, drain: int = 2) -> Throughput:
    for _ in range(warmup):
        original_step()
    time.sleep(settle_s)
    for _ in range(warmup):
        migrated_step()
    result = Throughput(warmup, iterations, repeats, SideTiming(), SideTiming())
    for _ in range(repeats):
        for step, side in ((original_step, result.original), (migrated_step, result.migrated)):
            time.sleep(settle_s)
            for _ in range(drain):  # the prefetch queue filled while the other side ran: untimed
                step()
            samples = 0
            cpu_start, start = time.process_time(), time.perf_counter()
            for _ in range(iterations):
                samples += step()
            elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
            side.samples_per_s.append(samples / elapsed if elapsed > 0 else 0.0)
            side.samples_per_cpu_s.append(samples / cpu if cpu > 0 else 0.0)
    return result


__all__ = ["Throughput", "SideTiming", "measure", "pipeline_stepper", "migrated_stepper", "asdict"]
