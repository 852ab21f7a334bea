"""The scale benchmark (issue 33): how a project run grows with the repository.

For each N, a repository of about N modules is generated (``generate.py``: the shapes of real code, pipelines
shared between modules) and migrated as a user runs it, ``python -m dali_migrate migrate --json -j JOBS DIR``,
in a process of its own. Printed per run: the files, the wall-clock seconds, the CPU seconds of the process and
its workers (user and system: what other processes on the machine disturb least), files per second, the peak
memory of the largest process (``/usr/bin/time -v``'s maximum resident set size, the figure a user sees in
``top``) and of the whole process tree (the main process and its workers, sampled every 0.2 s from /proc), and the
statuses. Time against N is drawn into a PNG, beside the line a linear cost would follow from the smallest run.

    python benchmarks/scale/run.py                           # N = 100, 300, 1000, 3000
    python benchmarks/scale/run.py --sizes 100 300 --png /tmp/scale.png
    python benchmarks/scale/run.py --sizes --tree /work/dali-src/dali/test/python --tree /work/main/.corpus

``--code CHECKOUT`` runs another checkout's dali_migrate (an earlier commit, for before/after numbers).
``--tree PATH`` times a folder that exists (DALI's trees, the corpus) the same way (never written: no --write).
Results go to ``--json`` (default ``benchmarks/scale/results.json``) as they come.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

from generate import generate  # noqa: E402


def _tree_rss_kb(root_pid: int) -> int:
    """Resident memory of ``root_pid`` and all its descendants, in KiB."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            with open(f"/proc/{entry}/statm") as f:
                pages = int(f.read().split()[1])
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        parents[int(entry)] = int(fields[1])
        rss[int(entry)] = pages * os.sysconf("SC_PAGE_SIZE") // 1024
    tree = {root_pid}
    grew = True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in tree and pid not in tree:
                tree.add(pid)
                grew = True
    return sum(rss.get(pid, 0) for pid in tree)


def measure(folder: Path, jobs: int, nice: int, code: Path = ROOT) -> dict:
    """One ``migrate --json`` run over ``folder`` by the dali_migrate of checkout ``code``: seconds, peak memory, the
    summary of its JSON."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(code), os.environ.get("PYTHONPATH")) if p),
           "DALI_NUM_THREADS": os.environ.get("DALI_NUM_THREADS", "2")}
    command = ["/usr/bin/time", "-v", "nice", "-n", str(nice), sys.executable, "-m", "dali_migrate", "migrate",
               "--json", "-j", str(jobs), str(folder)]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env, cwd=folder)
        peak = [0]

        def sample():
            while process.poll() is None:
                peak[0] = max(peak[0], _tree_rss_kb(process.pid))
                time.sleep(0.2)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        process.wait()
        seconds = time.perf_counter() - started
        sampler.join()
        out.seek(0)
        err.seek(0)
        report, timing = out.read(), err.read()
    max_rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", timing)
    cpu = sum(float(m) for m in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", timing))
    try:
        summary = json.loads(report)["summary"]
    except (ValueError, KeyError):
        summary = {"error": timing[-2000:]}
    files = summary.get("files", 0)
    return {"seconds": round(seconds, 2), "cpu_seconds": round(cpu, 1), "files": files, "files_per_s": round(files / seconds, 2) if seconds else 0,
            "max_rss_mib": round(int(max_rss.group(1)) / 1024, 1) if max_rss else None,
            "tree_rss_mib": round(peak[0] / 1024, 1), "exit": process.returncode, "summary": summary}


def draw(results: list[dict], png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = sorted((r for r in results if "n" in r), key=lambda r: r["n"])
    if not runs:
        return
    ns = [r["n"] for r in runs]
    figure, axes = plt.subplots(figsize=(6, 4))
    axes.plot(ns, [r["seconds"] for r in runs], "o-", label="wall clock (shared machine)")
    axes.plot(ns, [r["cpu_seconds"] for r in runs], "s-", label="CPU (process and workers)")
    first = runs[0]
    axes.plot(ns, [first["cpu_seconds"] * n / first["n"] for n in ns], "--", color="gray",
              label=f"CPU, linear from N={first['n']}")
    for r in runs:
        axes.annotate(f"{r['cpu_seconds']:.0f} s", (r["n"], r["cpu_seconds"]), textcoords="offset points",
                      xytext=(4, -12))
    axes.set_xlabel("modules in the generated repository (N)")
    axes.set_ylabel("seconds (migrate --json -j 2, 2 cores)")
    axes.set_title("dali-migrate: project run time against repository size")
    axes.legend()
    axes.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(png, dpi=100)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[100, 300, 1000, 3000])
    parser.add_argument("--tree", type=Path, action="append", default=[], help="an existing folder to time too")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--nice", type=int, default=10)
    parser.add_argument("--json", type=Path, default=HERE / "results.json")
    parser.add_argument("--png", type=Path, default=HERE / "time_vs_n.png")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose dali_migrate runs (before/after)")
    args = parser.parse_args(argv)
    results = []
    print(f"{'run':<40} {'files':>6} {'seconds':>8} {'CPU s':>8} {'files/s':>8} {'max RSS':>9} {'tree RSS':>9}  "
          f"statuses")

    def show(name, r):
        print(f"{name:<40} {r['files']:>6} {r['seconds']:>8.1f} {r['cpu_seconds']:>8.1f} {r['files_per_s']:>8.2f} "
              f"{r['max_rss_mib']:>7} M "
              f"{r['tree_rss_mib']:>7} M  {r['summary'].get('statuses', r['summary'])}", flush=True)
        args.json.write_text(json.dumps(results, indent=1) + "\n")

    for n in args.sizes:
        with tempfile.TemporaryDirectory(prefix=f"scale-{n}-") as scratch:
            folder = Path(scratch) / "repo"
            modules = generate(n, folder)
            r = {"n": n, "modules": modules, **measure(folder, args.jobs, args.nice, args.code)}
        results.append(r)
        show(f"generated N={n} ({modules} modules)", r)
    for tree in args.tree:
        r = {"tree": str(tree), **measure(tree.resolve(), args.jobs, args.nice, args.code)}
        results.append(r)
        show(str(tree), r)
    if any("n" in r for r in results):
        draw(results, args.png)
        print(f"drawn: {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
