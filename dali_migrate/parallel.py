"""Run one task per file over a process pool, results in input order, with an optional progress bar.

Processes, not threads: libcst's parse and visitors are Python code that holds the GIL. One file
per task keeps one slow file from holding back a chunk of others; results come back in input
order, so the output does not depend on ``jobs``.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class Progress:
    """``dali-migrate [#######.............] 120/400 files`` on stderr, redrawn at most 10 times a second.

    Shown when stderr is a terminal (or when forced) and the run is long enough to want it.
    """

    def __init__(self, total: int, enabled: bool, stream=None, label: str = "files"):
        self.total = total
        self.done = 0
        self.stream = stream or sys.stderr
        self.enabled = enabled and total > 0
        self.label = label
        self._last = 0.0

    @staticmethod
    def wanted(force: bool | None, stream=None) -> bool:
        if force is not None:
            return force
        stream = stream or sys.stderr
        return hasattr(stream, "isatty") and stream.isatty()

    def advance(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last >= 0.1 or self.done >= self.total:
            self._last = now
            self._draw()

    def _draw(self) -> None:
        width = 30
        filled = int(width * self.done / self.total) if self.total else width
        self.stream.write(f"\rdali-migrate [{'#' * filled}{'.' * (width - filled)}] "
                          f"{self.done}/{self.total} {self.label}")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self._draw()
            self.stream.write("\n")
            self.stream.flush()


def _context():
    # fork is cheapest (workers inherit the imported engine); forking a process that runs threads
    # (an MCP server, say) can deadlock, so use forkserver there.
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    if "forkserver" in methods:
        return multiprocessing.get_context("forkserver")
    return multiprocessing.get_context()


_shared = None  # what every task of the current run_ordered call reads (``shared()``)


def _share(value) -> None:
    global _shared
    _shared = value


def shared():
    """The ``shared`` value of the run_ordered call this task belongs to (in a worker: sent there once, when the
    worker started, not with each task; a project of thousands of modules pickled per task cost more than the
    tasks)."""
    return _shared


def run_ordered(func, items: list, jobs: int | None = None, progress: Progress | None = None, shared=None) -> list:
    """``[func(item) for item in items]``, over ``jobs`` processes when that pays off. ``shared``: a value every
    task reads through ``parallel.shared()``."""
    jobs = default_jobs() if jobs is None else max(1, int(jobs))
    results = []
    if jobs == 1 or len(items) < 2:
        before = _shared
        _share(shared)
        try:
            for item in items:
                results.append(func(item))
                if progress:
                    progress.advance()
        finally:
            _share(before)
        return results
    with ProcessPoolExecutor(max_workers=min(jobs, len(items)), mp_context=_context(), initializer=_share,
                             initargs=(shared,)) as pool:
        for result in pool.map(func, items, chunksize=1):
            results.append(result)
            if progress:
                progress.advance()
    return results
