"""Training-loop throughput of dali-migrate's output against pipeline mode, as users feel it (issue 18).

    python benchmarks/training_loop.py [--config classification,training] [--work-ms 0,10,20] [--runs 3]
                                       [--consumer numpy|torch] [--baseline-tree /path/to/other/checkout]
                                       [--extra LABEL=FILE ...] [--json OUT]

Each step of the loop takes a batch, converts every output the way user code does (``numpy``: the
pipeline's ``as_array()`` against the migration's ``np.array(ndd.as_tensor(b))``; ``torch``:
``feed_ndarray`` as ``DALIGenericIterator`` does against ``batch.torch()``), then sleeps S ms like a
GPU training step that leaves the CPU free. Every measurement is one process; the sides alternate
(``dali_migrate/harness/training_loop.py``). Sides: ``original`` (pipeline mode), ``after`` (this
checkout's migration, made on the fly), ``before`` (the migration made by ``--baseline-tree``'s
dali-migrate, e.g. main's checkout, when given) and any ``--extra`` hand-written migrations.

Configurations (data generated, seeded):
* ``classification``: ``benchmarks/classification/original.py`` (the pipeline issue 18 measured):
  200 JPEGs of 140-280 px, decode, resize 128, crop 112 + normalize, batch 16.
* ``training``: ``benchmarks/training/original.py``: 256 JPEGs of about 500x375, decode with a random
  crop, resize to 224, random mirror + normalize, batch 64.
Without a GPU, ``mixed``/``gpu`` are mapped to ``cpu`` in every side, as ``verify`` does.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from throughput import make_images  # noqa: E402

CONFIGS = {
    # name: (original file, pipeline, images, ((w_lo, w_hi), (h_lo, h_hi)) or None for 140-280 px, warm-up, timed steps)
    "classification": (HERE / "classification" / "original.py", "classification", 200, None, 13, 52),
    "training": (HERE / "training" / "original.py", "training", 256, ((460, 540), (340, 410)), 4, 16),
}


def migrate_with(tree: Path | None, path: Path) -> str:
    """The migration of ``path`` by the dali-migrate in ``tree`` (this checkout when None)."""
    if tree is None:
        from dali_migrate.engine import migrate_source

        return migrate_source(path.read_text(encoding="utf-8"), str(path)).migrated
    code = ("import sys; from dali_migrate.engine import migrate_source; p = sys.argv[1]; "
            "sys.stdout.write(migrate_source(open(p, encoding='utf-8').read(), p).migrated)")
    env = {**os.environ, "PYTHONPATH": str(tree)}  # and cwd: `python -c` puts the current folder first
    return subprocess.run([sys.executable, "-c", code, str(path)], env=env, cwd=tree, capture_output=True,
                          text=True, check=True).stdout


def measure_config(name: str, args, tmp: Path):
    from dali_migrate.harness.devices import cuda_device_count, map_devices_to_cpu
    from dali_migrate.harness.training_loop import measure_training_loop

    original, pipeline, count, sizes, warmup, iterations = CONFIGS[name]
    data = tmp / name
    make_images(data, count, sizes)
    texts = {"original": original.read_text(encoding="utf-8")}
    if args.baseline_tree:
        texts["before"] = migrate_with(Path(args.baseline_tree), original)
    texts["after"] = migrate_with(None, original)
    for extra in args.extra:
        label, _, file = extra.partition("=")
        texts[label] = Path(file).read_text(encoding="utf-8")
    mapped = cuda_device_count() == 0
    if mapped:
        texts = {label: map_devices_to_cpu(text, label)[0] for label, text in texts.items()}
    sides = {label: (text, str(original)) for label, text in texts.items()}
    result = measure_training_loop(sides, pipeline, [str(data)], work_ms=args.work_ms, runs=args.runs,
                                   consumer=args.consumer, warmup=args.warmup or warmup,
                                   iterations=args.iterations or iterations)
    return result, mapped, texts


def table(name: str, result, mapped: bool) -> str:
    others = [s for s in result.sides if s != "original"]
    lines = [f"### {name} ({result.consumer} consumer; median [min..max] samples/s of {result.runs} alternating "
             f"runs, one process each; {result.iterations} timed steps after {result.warmup} warm-up; "
             f"{os.cpu_count()} CPUs; load average {min(result.load_average):.1f}-{max(result.load_average):.1f}; "
             f"devices mapped to cpu: {mapped})", "",
             "| S (ms) | pipeline | " + " | ".join(others) + " | " +
             " | ".join(f"ratio {s}" for s in others) + " | " + " | ".join(f"per CPU-s {s}" for s in others) + " |",
             "|---" * (2 + 3 * len(others)) + "|"]
    for work_ms, by_side in result.series.items():
        def cell(side):
            s = by_side[side]
            return f"{s.median:.0f} [{min(s.samples_per_s):.0f}..{max(s.samples_per_s):.0f}]"
        lines.append(f"| {work_ms:g} | {cell('original')} | " + " | ".join(cell(s) for s in others) + " | " +
                     " | ".join(f"{result.ratio(work_ms, s):.3f}" for s in others) + " | " +
                     " | ".join(f"{result.cpu_ratio(work_ms, s):.3f}" for s in others) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="classification,training")
    parser.add_argument("--work-ms", default="0,10,20", help="consumer work per step, ms (comma-separated)")
    parser.add_argument("--runs", type=int, default=3, help="processes per side and work time (alternating)")
    parser.add_argument("--consumer", default="numpy", choices=("numpy", "torch"))
    parser.add_argument("--baseline-tree", help="a checkout whose dali-migrate makes the 'before' migration")
    parser.add_argument("--extra", action="append", default=[], help="LABEL=FILE: a hand-written migration")
    parser.add_argument("--warmup", type=int, help="warm-up steps (default per configuration)")
    parser.add_argument("--iterations", type=int, help="timed steps (default per configuration)")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args(argv)
    args.work_ms = [float(w) for w in args.work_ms.split(",") if w.strip()]
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in [c.strip() for c in args.config.split(",") if c.strip()]:
            result, mapped, _ = measure_config(name, args, Path(tmp))
            print(table(name, result, mapped), flush=True)
            print(flush=True)
            results[name] = {**result.to_dict(), "devices_mapped_to_cpu": mapped}
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
