"""Speed at repo scale, as ratios measured in one run (never as timed tests).

    python benchmarks/speed.py [--files 240] [--rounds 3] [--corpus scripts|templates] [--only migrate|scan|workers]
                               [--stdlib PATH] [--json out.json]

1. migrate: the whole pass sequence (``engine.migrate_source``) vs a bare libcst round trip
   (``libcst.parse_module(src).code``) over the same generated DALI files.   goal <= 1.5x
   Also shown: the ratio against the round trip with Python's cyclic collector paused per file, as
   ``migrate_source`` pauses it (how much of the gain that pause is).
   ``--corpus scripts`` (default): training scripts with DALI pipelines of every style inside
   (``speed_corpus.py``); ``--corpus templates``: the earlier small pipeline-only templates.
2. scan: ``api.migrate_paths`` over the CPython standard library (discovery, .gitignore, read,
   the cheap text check; nothing there uses DALI) vs os.walk + reading the same files.  goal <= 2x
3. workers: ``api.migrate_paths`` on the DALI files with 1 and with 2 worker processes.
4. real: ``engine.migrate_source`` per file on real DALI code vs a bare libcst round trip of the same
   text, measured in the same run: the dev corpus (``--real-corpus``, default ``.corpus`` of the main
   checkout) and the ``--dali-heavy`` largest files of DALI's ``dali/test/python`` that use ``fn.`` or
   ``Pipeline`` (``--dali-src``). Prints the median and the worst per-file ratios and files/s.  goal <= 2x

Each timing is the best of ``--rounds`` (the machine is shared: the minimum is the least disturbed); ``--cpu``
times by the process's CPU time instead of the wall clock (except the workers' benchmark).
The DALI files are generated from a few templates with varied names, ops, arguments and amounts of
non-DALI code, into a temporary folder.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import libcst as cst  # noqa: E402

from dali_migrate import api, engine  # noqa: E402
from dali_migrate.parallel import default_jobs  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from speed_corpus import generate_scripts  # noqa: E402

OPS = ["fn.resize(images, resize_x={n})", "fn.flip(images, horizontal=1)", "fn.rotate(images, angle={n})",
       "fn.crop_mirror_normalize(images, crop=({n}, {n}))", "fn.brightness(images, brightness=0.{n})",
       "fn.image_decoder(images)", "fn.random.coin_flip()", "dmath.clamp(images, 0, {n})",
       "fn.cast(images, dtype=types.FLOAT)", "fn.transpose(images, perm=[2, 0, 1])"]

HEADERS = [
    "import nvidia.dali.fn as fn\nimport nvidia.dali.math as dmath\nimport nvidia.dali.types as types\n"
    "from nvidia.dali import pipeline_def\n",
    "from nvidia.dali import fn, pipeline_def, types\nimport nvidia.dali.math as dmath\nimport numpy as np\n",
    "import os\nimport nvidia.dali as dali\nimport nvidia.dali.fn as fn\nimport nvidia.dali.types as types\n"
    "from nvidia.dali import math as dmath\n",
]

HELPER = '''

def helper_{i}(values, scale={n}):
    """Plain Python next to the pipeline: {i}."""
    total = 0
    for k, value in enumerate(values):
        if k % 2:
            total += value * scale
        else:
            total -= value // (scale + 1)
    return {{"total": total, "count": len(values), "name": "helper_{i}"}}
'''


def generate(count: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    files = []
    for i in range(count):
        header = HEADERS[i % len(HEADERS)]
        body = []
        for j in range(rng.randint(1, 4)):
            ops = "\n".join(f"    images = {rng.choice(OPS).format(n=rng.randint(2, 9))}"
                            for _ in range(rng.randint(3, 9)))
            body.append(f'''

@pipeline_def(batch_size={rng.choice([2, 4, 8])}, num_threads=2, device_id=None, seed={i})
def pipe_{i}_{j}(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
{ops}
    return images, labels
''')
            body.append(f'''

def augment_{i}_{j}(images):
{ops}
    return images
''')
        helpers = "".join(HELPER.format(i=f"{i}_{k}", n=k + 2) for k in range(rng.randint(0, 4)))
        files.append(header + "".join(body) + helpers)
    return files


# What a round is timed with: the wall clock, or with --cpu the process's CPU time (on a machine other jobs share,
# what they take of the cores is then not counted; not for the workers' benchmark, whose work is in other processes).
CLOCK = time.perf_counter


def best(funcs, rounds: int, clock=None) -> list[float]:
    """The best time of each function over ``rounds``, the functions interleaved round by round so
    that a burst of load from other processes hits all of them alike."""
    clock = clock or CLOCK
    times = [[] for _ in funcs]
    for _ in range(rounds):
        for i, func in enumerate(funcs):
            start = clock()
            func()
            times[i].append(clock() - start)
    return [min(t) for t in times]


def bench_migrate(sources, rounds):
    def bare():
        for src in sources:
            cst.parse_module(src).code

    def bare_collector_paused():
        # The same round trip with the cyclic collector paused per file, as migrate_source does: shows
        # how much of the ratio comes from that (the goal is against the plain round trip above).
        for src in sources:
            gc.disable()
            try:
                cst.parse_module(src).code
            finally:
                gc.enable()

    def migrate():
        for src in sources:
            result = engine.migrate_source(src)
            assert result.error is None and result.changed

    bare_s, paused_s, migrate_s = best([bare, bare_collector_paused, migrate], rounds)
    return {"files": len(sources), "lines": sum(s.count("\n") for s in sources),
            "bare_roundtrip_s": bare_s, "migrate_s": migrate_s, "ratio": migrate_s / bare_s,
            "bare_roundtrip_collector_paused_s": paused_s, "ratio_vs_collector_paused": migrate_s / paused_s}


def bench_scan(stdlib: Path, rounds):
    exclude = ["site-packages/"]

    def read_only():
        n = 0
        for root, dirs, names in os.walk(stdlib):
            dirs[:] = sorted(d for d in dirs if d != "site-packages" and d != "__pycache__")
            for name in sorted(names):
                if name.endswith(".py"):
                    with open(os.path.join(root, name), "rb") as f:
                        f.read()
                    n += 1
        return n

    count = read_only()  # warms the page cache for both
    result = {}

    def scan():
        run = api.migrate_paths([stdlib], jobs=1, exclude=exclude, progress=False)
        result["files"] = len(run.files)
        result["parsed"] = sum(1 for f in run.files if f.original)  # decoded: the bytes said "dali"

    read_s, scan_s = best([read_only, scan], rounds)
    return {"files_read": count, "files_scanned": result["files"], "parsed": result["parsed"],
            "read_s": read_s, "scan_s": scan_s, "ratio": scan_s / read_s}


def bench_workers(sources, rounds):
    with tempfile.TemporaryDirectory() as tmp:
        for i, src in enumerate(sources):
            Path(tmp, f"pipe_{i:04d}.py").write_text(src)

        def run(jobs):
            out = api.migrate_paths([tmp], jobs=jobs, progress=False)
            # (the run may also list a helper module it would create: not one of the sources)
            assert len([f for f in out.files if not f.created]) == len(sources) and not out.errors
            return out

        one, two = best([lambda: run(1), lambda: run(2)], rounds, clock=time.perf_counter)
        assert [f.migrated for f in run(1).files] == [f.migrated for f in run(2).files]
    return {"files": len(sources), "jobs1_s": one, "jobs2_s": two, "speedup": one / two}


def real_files(corpus: Path | None, dali_src: Path | None, heavy: int) -> list[Path]:
    """The corpus's .py files and the ``heavy`` largest DALI test files that build pipelines."""
    files = sorted(corpus.rglob("*.py")) if corpus and corpus.is_dir() else []
    tests = dali_src / "dali" / "test" / "python" if dali_src else None
    if tests and tests.is_dir() and heavy:
        def uses_pipelines(path):
            text = path.read_text(encoding="utf-8", errors="replace")
            return "fn." in text or "Pipeline" in text
        candidates = sorted((p for p in tests.rglob("*.py") if uses_pipelines(p)),
                            key=lambda p: (-p.stat().st_size, str(p)))
        files += candidates[:heavy]
    return files


def bench_real(paths: list[Path], rounds: int) -> dict:
    """Per file: the best of ``rounds`` for the bare round trip and for ``migrate_source``, interleaved."""
    rows = []
    for path in paths:
        src = path.read_text(encoding="utf-8")
        bare_s, migrate_s = best([lambda: cst.parse_module(src).code,
                                  lambda: engine.migrate_source(src, str(path))], rounds)
        rows.append({"path": str(path), "lines": src.count("\n"), "bare_s": bare_s, "migrate_s": migrate_s,
                     "ratio": migrate_s / bare_s})
    ratios = sorted(r["ratio"] for r in rows)
    total_bare, total_migrate = sum(r["bare_s"] for r in rows), sum(r["migrate_s"] for r in rows)
    return {"files": len(rows), "median_ratio": ratios[len(ratios) // 2] if ratios else 0.0,
            "worst_ratio": ratios[-1] if ratios else 0.0, "total_ratio": total_migrate / max(total_bare, 1e-9),
            "bare_files_per_s": len(rows) / max(total_bare, 1e-9),
            "migrate_files_per_s": len(rows) / max(total_migrate, 1e-9),
            "slowest_migrate_s": max((r["migrate_s"] for r in rows), default=0.0),
            "rows": sorted(rows, key=lambda r: -r["ratio"])}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=240)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--stdlib", default=sysconfig.get_paths()["stdlib"])
    parser.add_argument("--corpus", choices=["scripts", "templates"], default="scripts")
    parser.add_argument("--only", choices=["migrate", "scan", "workers", "real"], action="append")
    parser.add_argument("--real-corpus", type=Path, default=Path("/work/main/.corpus"))
    parser.add_argument("--dali-src", type=Path, default=Path("/work/dali-src"))
    parser.add_argument("--dali-heavy", type=int, default=20, help="how many of DALI's largest test files")
    parser.add_argument("--worst", type=int, default=8, help="how many of the worst files to print")
    parser.add_argument("--json", help="also write the numbers here")
    parser.add_argument("--cpu", action="store_true",
                        help="time by the process's CPU time, not the wall clock (not the workers' benchmark)")
    args = parser.parse_args(argv)
    if args.cpu:
        global CLOCK
        CLOCK = time.process_time
    only = set(args.only or ["real", "migrate", "scan", "workers"])
    sources = generate_scripts(args.files) if args.corpus == "scripts" else generate(args.files)
    numbers = {"cpu_count": os.cpu_count(), "usable_cores": default_jobs(), "python": sys.version.split()[0],
               "corpus": args.corpus, "rounds": args.rounds, "clock": "cpu" if args.cpu else "wall"}
    print(f"cores: {numbers['usable_cores']} usable ({numbers['cpu_count']} online), Python {numbers['python']}")
    if "real" in only:
        r = numbers["real"] = bench_real(real_files(args.real_corpus, args.dali_src, args.dali_heavy), args.rounds)
        print(f"0. real DALI files, migrate_source vs bare round trip per file: {r['files']} files: "
              f"median {r['median_ratio']:.2f}x, worst {r['worst_ratio']:.2f}x, all together "
              f"{r['total_ratio']:.2f}x (goal <= 2x); {r['migrate_files_per_s']:.1f} files/s "
              f"(round trip {r['bare_files_per_s']:.1f}), slowest file {r['slowest_migrate_s']:.2f}s")
        for row in r["rows"][:args.worst]:
            print(f"   {row['ratio']:6.2f}x  {row['migrate_s']:.3f}s  {row['lines']:5d} lines  {row['path']}")
    if "migrate" in only:
        m = numbers["migrate"] = bench_migrate(sources, args.rounds)
        print(f"1. migrate vs bare round trip: {m['files']} DALI files ({args.corpus}, {m['lines']} lines): "
              f"bare {m['bare_roundtrip_s']:.2f}s, all passes {m['migrate_s']:.2f}s -> {m['ratio']:.2f}x (goal <= 1.5x); "
              f"bare with the collector paused per file {m['bare_roundtrip_collector_paused_s']:.2f}s -> "
              f"{m['ratio_vs_collector_paused']:.2f}x")
    if "scan" in only:
        s = numbers["scan"] = bench_scan(Path(args.stdlib), args.rounds)
        print(f"2. scan stdlib vs read: {s['files_scanned']} files ({s['parsed']} decoded for a closer look): "
              f"read {s['read_s']:.3f}s, scan {s['scan_s']:.3f}s -> {s['ratio']:.2f}x (goal <= 2x)")
    if "workers" in only:
        w = numbers["workers"] = bench_workers(sources, args.rounds)
        print(f"3. workers: {w['files']} DALI files: 1 worker {w['jobs1_s']:.2f}s, 2 workers {w['jobs2_s']:.2f}s "
              f"-> {w['speedup']:.2f}x speed-up")
    if args.json:
        Path(args.json).write_text(json.dumps(numbers, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
