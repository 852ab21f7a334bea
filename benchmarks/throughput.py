"""Throughput of an honest migration of an image-classification pipeline, measured by the harness.

    python benchmarks/throughput.py [--images 200] [--runs 2] [--variants eager,capture,sync_cpu] [--json OUT]

Pipeline (benchmarks/classification/original.py): File reader (shuffled, seeded) -> decoders.image
("mixed", mapped to cpu without a GPU) -> resize(128x128) -> crop_mirror_normalize(112x112, FLOAT),
batch 16, 2 threads. Variants of the migrated code: ``tool`` (dali-migrate's own output, migrated on
the fly), ``eager`` (hand-written, default evaluation), ``capture``
(``next_epoch(capture=True)``), ``sync_cpu`` (``with ndd.EvalMode.sync_cpu:``).

Each run is one ``dali-migrate verify --throughput --json`` process: it first checks that the
outputs are equal, then times both sides in the same process with alternating repeats
(dali_migrate/harness/throughput.py), so each ratio is measured in one run. Runs repeat the
whole process to show run-to-run noise. The data set is generated (PIL JPEGs, 140-280 px, seeded).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# tool: migrated on the fly by dali-migrate itself (no hand-written file).
VARIANTS = {"tool": None, "eager": "migrated.py", "capture": "migrated_capture.py", "sync_cpu": "migrated_sync.py"}


def make_images(root: Path, count: int, sizes=None) -> None:
    """``count`` seeded JPEGs in 10 label folders, 140-280 px a side, or ``sizes`` = ((w_lo, w_hi), (h_lo, h_hi))."""
    import numpy as np
    from PIL import Image

    rs = np.random.RandomState(42)
    for i in range(count):
        folder = root / str(i % 10)
        folder.mkdir(parents=True, exist_ok=True)
        if sizes is None:
            h, w = rs.randint(140, 281, 2)
        else:
            (w_lo, w_hi), (h_lo, h_hi) = sizes
            w, h = rs.randint(w_lo, w_hi + 1), rs.randint(h_lo, h_hi + 1)
        y, x = np.mgrid[0:h, 0:w]
        base = np.stack([(x * 255 // w), (y * 255 // h), ((x + y) * 127 // (w + h))], -1)
        img = (base + rs.randint(0, 48, (h, w, 3))).clip(0, 255).astype(np.uint8)
        Image.fromarray(img).save(folder / f"{i}.jpg", quality=85)


def run_variant(variant: str, data: Path, args) -> dict:
    migrated = ["--migrated", str(HERE / "classification" / VARIANTS[variant])] if VARIANTS[variant] else []
    cmd = [sys.executable, "-m", "dali_migrate", "verify", str(HERE / "classification" / "original.py"),
           "--pipeline", "classification", *migrated,
           "--args", json.dumps([str(data)]), "--iterations", str(args.iterations), "--throughput",
           "--warmup", str(args.warmup), "--repeats", str(args.repeats),
           "--timing-iterations", str(args.timing_iterations), "--json"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{variant}: verify failed ({proc.returncode}):\n{proc.stderr}")
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"{variant}: no JSON report (exit {proc.returncode}):\n{proc.stdout[-2000:]}\n"
                         f"{proc.stderr[-2000:]}") from None
    return {"variant": variant, "verdict": report["verdict"], "throughput": report["throughput"],
            "devices": report["devices"]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=200)
    parser.add_argument("--runs", type=int, default=2, help="separate processes per variant")
    parser.add_argument("--variants", default="tool,eager,capture,sync_cpu")
    parser.add_argument("--iterations", type=int, default=13, help="iterations compared for equality")
    parser.add_argument("--warmup", type=int, default=13)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--timing-iterations", type=int, default=26, help="iterations per timed repeat (2 epochs)")
    parser.add_argument("--data", help="use this image folder instead of generating one")
    parser.add_argument("--json", help="write all results here")
    args = parser.parse_args(argv)
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(args.data) if args.data else Path(tmp) / "images"
        if not args.data:
            make_images(data, args.images)
        count = sum(1 for _ in data.rglob("*.jpg"))
        results = [run_variant(v, data, args) for _ in range(args.runs) for v in variants]
    print(f"# {count} images, batch 16, {args.warmup} warm-up + {args.repeats} x {args.timing_iterations} "
          f"timed iterations per side, alternating; {os.cpu_count()} CPUs; "
          f"devices mapped to cpu: {results[0]['devices']['mapped_to_cpu']}")
    print("| variant | verdict | original img/s (median [min..max]) | migrated img/s | ratio | median paired ratio "
          "| ratio per CPU-second |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        t = r["throughput"]
        o, m = t["original"], t["migrated"]
        print(f"| {r['variant']} | {r['verdict']} | {o['median']:.0f} [{o['min']:.0f}..{o['max']:.0f}] | "
              f"{m['median']:.0f} [{m['min']:.0f}..{m['max']:.0f}] | {t['ratio_migrated_over_original']:.3f} | "
              f"{t['median_paired_ratio']:.3f} | {t['cpu_ratio_migrated_over_original']:.3f} |")
    for v in variants:
        ratios = [r["throughput"]["ratio_migrated_over_original"] for r in results if r["variant"] == v]
        cpu = [r["throughput"]["cpu_ratio_migrated_over_original"] for r in results if r["variant"] == v]
        print(f"{v}: ratio per run {ratios}, median {statistics.median(ratios):.3f}; "
              f"per CPU-second {cpu}, median {statistics.median(cpu):.3f}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0 if all(r["verdict"] == "equal" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
