"""A training loop in one module over a loader another module makes at import time (issue 35, item 5).

    python benchmarks/prefetch_modules.py [--work-ms 20] [--runs 3] [--steps 24] [--baseline-tree PATH] [--json OUT]

The project (written to a temporary folder): ``data.py`` builds a @pipeline_def pipeline (decode, resize,
crop_mirror_normalize over generated JPEGs) and its ``DALIGenericIterator`` at module level and never steps it;
``train.py`` imports the loader and steps it, converting nothing more than the iterator gives and then working
``--work-ms`` per batch (a sleep: a GPU step that leaves the CPU free, while pipeline mode keeps loading). The
project is migrated as a whole (``migrate_paths(write=True)``, as ``dali-migrate migrate --write`` does).

Sides, one process per measurement, alternating, their order rotating from run to run; medians over runs:
* ``pipeline``: the original program (pipeline mode, ``prefetch_queue_depth=2``);
* ``after``: this checkout's migration (``data.py``'s generator keeps ``@Prefetch(depth=2)``);
* ``on-demand``: the same migration with ``@Prefetch`` removed, what dali-migrate wrote before issue 35 (5)
  ("stepped a few times, never in a loop"); with ``--baseline-tree``, that tree's migration instead.
Printed: samples/s per side and the ratios ``after / pipeline`` and ``on-demand / pipeline``, one run of this
script. Devices are CPU (device_id=None): no GPU here.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from throughput import make_images  # noqa: E402

DATA = '''\
import os

from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.plugin.pytorch import DALIGenericIterator


@pipeline_def(batch_size=16, num_threads=2, device_id=None)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=5, name="Reader")
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    images = fn.resize(images, resize_shorter=128)
    images = fn.crop_mirror_normalize(images, crop=(112, 112), dtype=types.FLOAT, output_layout="CHW",
                                      mean=[127.5] * 3, std=[127.5] * 3)
    return images, labels


pipe = train_pipe(os.environ["BENCH_IMAGES"])
pipe.build()
train_loader = DALIGenericIterator([pipe], ["images", "labels"], reader_name="Reader", auto_reset=True)
'''

TRAIN = '''\
import json
import os
import sys
import time

from data import train_loader

work, warmup, steps = float(os.environ["BENCH_WORK_MS"]) / 1000, int(os.environ["BENCH_WARMUP"]), \\
    int(os.environ["BENCH_STEPS"])
batches = iter(train_loader)


def batch():
    global batches
    try:
        return next(batches)
    except StopIteration:  # an epoch ended: the next one (auto_reset)
        batches = iter(train_loader)
        return next(batches)


for _ in range(warmup):
    batch()
start, cpu, samples = time.perf_counter(), time.process_time(), 0
for _ in range(steps):
    data = batch()
    samples += data[0]["images"].shape[0]
    time.sleep(work)  # the training step: the CPU is free meanwhile
print(json.dumps({"samples_per_s": samples / (time.perf_counter() - start),
                  "cpu_s": time.process_time() - cpu}))
'''


def _migrated_copy(tree: Path | None, source: Path, target: Path) -> None:
    """``source`` copied to ``target`` and migrated there by the dali-migrate of ``tree`` (this checkout: None)."""
    shutil.copytree(source, target)
    code = "import sys; from dali_migrate.api import migrate_paths; migrate_paths([sys.argv[1]], write=True, jobs=1)"
    tree = tree or ROOT
    env = {**os.environ, "PYTHONPATH": str(tree)}  # and cwd: `python -c` puts the current folder first
    subprocess.run([sys.executable, "-c", code, str(target)], env=env, cwd=tree, check=True, capture_output=True)


def _measure(folder: Path, env: dict) -> dict:
    run = subprocess.run([sys.executable, "train.py"], cwd=folder, env=env, capture_output=True, text=True,
                         timeout=600)
    if run.returncode != 0:
        raise RuntimeError(f"{folder.name}: {run.stderr[-2000:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work-ms", type=float, default=20.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=24)
    parser.add_argument("--warmup", type=int, default=4)
    parser.add_argument("--images", type=int, default=96)
    parser.add_argument("--baseline-tree", type=Path, help="the on-demand side is this tree's migration")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="prefetch_modules_") as tmp:
        tmp = Path(tmp)
        make_images(tmp / "images", args.images)
        original = tmp / "pipeline"
        original.mkdir()
        (original / "data.py").write_text(DATA)
        (original / "train.py").write_text(TRAIN)
        after, on_demand = tmp / "after", tmp / "on-demand"
        _migrated_copy(None, original, after)
        migrated = (after / "data.py").read_text()
        if "@Prefetch(depth=2)" not in migrated:
            print("note: this checkout's migration of data.py has no @Prefetch", file=sys.stderr)
        if args.baseline_tree is not None:
            _migrated_copy(args.baseline_tree, original, on_demand)
        else:
            shutil.copytree(after, on_demand)
            (on_demand / "data.py").write_text(migrated.replace("    @Prefetch(depth=2)\n", ""))
        sides = {"pipeline": original, "after": after, "on-demand": on_demand}
        env = {**os.environ, "BENCH_IMAGES": str(tmp / "images"), "BENCH_WORK_MS": str(args.work_ms),
               "BENCH_WARMUP": str(args.warmup), "BENCH_STEPS": str(args.steps), "PYTHONPATH": ""}
        found: dict[str, list] = {name: [] for name in sides}
        names = list(sides)
        for run in range(args.runs):
            for name in names[run % len(names):] + names[:run % len(names)]:
                found[name].append(_measure(sides[name], env))
        medians = {name: statistics.median(r["samples_per_s"] for r in runs) for name, runs in found.items()}
        cpu = {name: statistics.median(r["cpu_s"] for r in runs) for name, runs in found.items()}
    print(f"training loop in train.py over data.py's module-level loader, {args.work_ms:g} ms of work per batch of "
          f"16, {args.steps} steps, median of {args.runs} runs")
    for name in sides:
        print(f"  {name:<10} {medians[name]:8.1f} samples/s  (process CPU {cpu[name]:.2f} s)")
    ratios = {f"{name}/pipeline": medians[name] / medians["pipeline"] for name in ("after", "on-demand")}
    for key, value in ratios.items():
        print(f"  {key:<20} {value:.2f}")
    if args.json:
        args.json.write_text(json.dumps({"work_ms": args.work_ms, "runs": found, "medians": medians,
                                         "ratios": ratios}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
