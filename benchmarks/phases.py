"""Where ``migrate_source``'s time goes, per phase, in multiples of a bare libcst round trip (issue 33).

    PYTHONPATH=$PWD python benchmarks/phases.py [--rounds 2] [--only SUBSTRING] [--dali-heavy 20] [--cpu]

Runs ``engine.migrate_source`` over the files ``speed.py --only real`` times (the dev corpus and DALI's largest
test files) with a timer around each phase, and prints each phase's *exclusive* time (its own, less the phases it
calls) summed over the files, divided by the summed bare round trips (``libcst.parse_module(src).code``) of the
same files measured in the same run. The phases: ``elide`` (the ``ast`` split), ``parse`` (libcst, of the elided
text; twice for a file that then needs the whole file), ``print_with_spans`` (the round-trip check and the
nodes' places), ``flow`` (the flow models the units and the passes read), ``adapted.find``, ``units``, each pass,
``postcheck`` and ``flow(post)`` (the post-check's walk and its own flow model over the migrated module),
``undefined``, ``print`` (the final print), ``units-loop`` (what ``engine._migrate_units`` does itself: markers,
kept units, project facts) and ``other`` (the rest of ``migrate_source``). Also: how many files were migrated a
second time from the start on the whole file (``context.NeedsWholeFile``) and what those first attempts cost; the
parse and the prints together (the least a libcst migration of the files costs); and the runs of the passes that
the engine threw away because they kept more units in pipeline mode (``engine._migrate_units`` runs the passes again
from the original module), with the per-file median ratio with and without them.

The timers add a little to every phase; the ratios say where the time goes, ``speed.py`` says how fast it is.
The last round's times are printed (the earlier ones warm the caches).
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import libcst as cst  # noqa: E402

from dali_migrate import dataflow, elision, engine, postcheck, units  # noqa: E402
from dali_migrate.transforms import PASSES  # noqa: E402
from dali_migrate.transforms.unroll import adapted  # noqa: E402
from speed import real_files  # noqa: E402

CLOCK = time.perf_counter  # (--cpu: time.process_time, the process's CPU time)
_own: dict[str, float] = defaultdict(float)
_calls: dict[str, int] = defaultdict(int)
_stack: list[list] = []  # [phase, time spent in the phases it called]


def _timing(function, phase):
    """``function`` with its exclusive time (less the timed calls it makes) going to ``phase`` (a name, or a
    function of the stack)."""

    @functools.wraps(function)
    def timed(*args, **kwargs):
        name = phase() if callable(phase) else phase
        _stack.append([name, 0.0])
        start = CLOCK()
        try:
            return function(*args, **kwargs)
        finally:
            spent = CLOCK() - start
            name, inner = _stack.pop()
            _own[name] += spent - inner
            _calls[name] += 1
            if _stack:
                _stack[-1][1] += spent

    return timed


def _timed(owner, attribute: str, phase, undo: list) -> None:
    """Wrap ``owner.attribute`` so that its exclusive time goes to ``phase`` (a name, or a function of the stack)."""
    function = getattr(owner, attribute)
    undo.append((owner, attribute, owner.__dict__[attribute]))
    setattr(owner, attribute, _timing(function, phase))


def _instrument() -> tuple[dict, list]:
    """Timers around the phases; returns the retry counts and what to put back (``_restore``)."""
    retries = {"files": 0, "first_attempts_s": 0.0, "attempts": []}  # (attempts: the running file's runs of the passes)
    undo: list = []
    _timed(engine, "parse_module", "parse", undo)
    _timed(engine, "print_with_spans", "print_with_spans", undo)
    _timed(engine, "print_code", "print", undo)
    _timed(elision, "elide", "elide", undo)
    _timed(dataflow.DataFlow, "__init__",
           lambda: "flow(post)" if any(e[0] in ("postcheck", "undefined") for e in _stack) else "flow", undo)
    _timed(units.Units, "__init__", "units", undo)
    _timed(postcheck, "check", "postcheck", undo)
    _timed(postcheck, "undefined_names", "undefined", undo)
    _timed(adapted, "find", "adapted.find", undo)
    for migration_pass in PASSES:
        _timed_pass(migration_pass, undo)
    _timed(engine, "_migrate_units", "units-loop", undo)
    _timed(engine, "migrate_source", "other", undo)
    whole = engine._migrate_parsed
    undo.append((engine, "_migrate_parsed", whole))
    started: list[float] = []

    def migrate_parsed(result, source, path, passes, force, project=None, elide=True, helper_module=None):
        if elide:
            started[:] = [CLOCK()]
        elif started:  # the whole file, after an elided first attempt that needed it
            retries["files"] += 1
            retries["first_attempts_s"] += CLOCK() - started[0]
            started.clear()
        return whole(result, source, path, passes, force, project, elide, helper_module)

    engine._migrate_parsed = migrate_parsed
    run_passes = engine._run_passes
    undo.append((engine, "_run_passes", run_passes))

    def attempt(module, ctx, passes, force):  # (not on the stack: the passes' own timers see no new phase)
        start = CLOCK()
        try:
            return run_passes(module, ctx, passes, force)
        finally:
            retries["attempts"].append(CLOCK() - start)

    engine._run_passes = attempt
    return retries, undo


def _timed_pass(migration_pass, undo: list) -> None:
    """A pass's ``run`` (an instance's attribute for the time of the measure: the class's method stays)."""
    function = migration_pass.run
    undo.append((migration_pass, "run", None))
    migration_pass.run = _timing(function, f"pass:{migration_pass.name}")


def _restore(undo: list) -> None:
    for owner, attribute, original in reversed(undo):
        if original is None:
            delattr(owner, attribute)  # (an instance's own attribute: the class's method shows again)
        else:
            setattr(owner, attribute, original)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--only", help="only the files whose path holds this")
    parser.add_argument("--real-corpus", type=Path, default=Path("/work/main/.corpus"))
    parser.add_argument("--dali-src", type=Path, default=Path("/work/dali-src"))
    parser.add_argument("--dali-heavy", type=int, default=20)
    parser.add_argument("--cpu", action="store_true", help="time by the process's CPU time, not the wall clock")
    args = parser.parse_args(argv)
    if args.cpu:
        global CLOCK
        CLOCK = time.process_time
    paths = [p for p in real_files(args.real_corpus, args.dali_src, args.dali_heavy)
             if not args.only or args.only in str(p)]
    sources = [(str(p), p.read_text(encoding="utf-8")) for p in paths]
    if not sources:
        print("no files (see --real-corpus, --dali-src)")
        return 1
    retries, undo = _instrument()
    try:
        for _ in range(args.rounds):
            _own.clear()
            _calls.clear()
            retries.update(files=0, first_attempts_s=0.0)
            bare = 0.0
            per_file = []  # (round trip, migrate_source, its runs of the passes before the last)
            for path, source in sources:
                start = CLOCK()
                cst.parse_module(source).code
                trip = CLOCK() - start
                bare += trip
                retries["attempts"] = []
                start = CLOCK()
                engine.migrate_source(source, path)
                per_file.append((trip, CLOCK() - start, sum(retries["attempts"][:-1])))
    finally:
        _restore(undo)
    total = sum(_own.values())
    print(f"{len(sources)} files: bare round trips {bare:.2f}s, migrate_source {total:.2f}s -> {total / bare:.2f}x")
    for name, spent in sorted(_own.items(), key=lambda item: -item[1]):
        print(f"  {name:20s} {spent / bare:5.2f}x  {spent:6.2f}s  {_calls[name]:4d} calls")
    print(f"migrated again on the whole file: {retries['files']} files, their first attempts "
          f"{retries['first_attempts_s']:.2f}s -> {retries['first_attempts_s'] / bare:.2f}x")
    floor = sum(_own[name] for name in ("parse", "print_with_spans", "print"))
    print(f"the parse and the prints alone (what any migration of these files through libcst costs): {floor / bare:.2f}x")
    again = [earlier for _, _, earlier in per_file if earlier]
    print(f"passes run again with more units kept: {len(again)} files, their earlier runs {sum(again):.2f}s -> "
          f"{sum(again) / bare:.2f}x; per-file median {statistics.median(m / t for t, m, _ in per_file):.2f}x, "
          f"{statistics.median((m - e) / t for t, m, e in per_file):.2f}x without those earlier runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
