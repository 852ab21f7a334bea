"""``dali-migrate report PATH… --out DIR``: what migrating a repo takes, as report.md, report.json
and plots. Runs the migration in memory (writes no source) and verifies pipelines where it can.

Exit codes as for ``migrate``: 0 nothing to change, 1 changes or spots for a person, 2 errors
(a file that does not parse, or the report cannot be written).
"""

from __future__ import annotations

import sys
from pathlib import Path

from .api import EXIT_CLEAN, EXIT_ERROR, EXIT_PENDING
from .output import plural


def add_arguments(parser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or folders (searched recursively)")
    parser.add_argument("--out", required=True, type=Path, metavar="DIR",
                        help="folder for report.md, report.json and the plots (created if needed)")
    parser.add_argument("--verify-args", type=Path, metavar="FILE",
                        help='JSON: {"<file>::<pipeline>" or "<pipeline>": {"args": [...], "kwargs": {...}}} '
                             "for pipelines that take arguments")
    parser.add_argument("--no-verify", action="store_true", help="do not run pipelines, even with the harness")
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG plots (no matplotlib needed)")
    parser.add_argument("--consumer-ms", metavar="MS,...",
                        help="also time each verified pipeline as a training loop that converts every output and "
                             "then works MS milliseconds, for each MS given (e.g. 0,10,20), as verify --consumer-ms "
                             "does (3 alternating runs per side, each in its own process)")
    progress = parser.add_mutually_exclusive_group()
    progress.add_argument("--progress", dest="progress", action="store_true", default=None,
                          help="show progress on stderr even when it is not a terminal")
    progress.add_argument("--no-progress", dest="progress", action="store_false", help="never show progress")


def run(args) -> int:
    from .report import build_report, load_verify_args, write_report

    try:
        verify_args = load_verify_args(args.verify_args)
    except (OSError, ValueError) as e:  # JSONDecodeError is a ValueError
        print(f"dali-migrate report: {args.verify_args}: {getattr(e, 'strerror', None) or e}", file=sys.stderr)
        return EXIT_ERROR
    training_loop = None
    if args.consumer_ms is not None:
        from .harness.training_loop import parse_work_ms

        work_ms = parse_work_ms(args.consumer_ms)
        if work_ms is None:
            print(f"dali-migrate report: --consumer-ms: expected milliseconds >= 0 separated by commas, got "
                  f"{args.consumer_ms!r}", file=sys.stderr)
            return EXIT_ERROR
        training_loop = {"work_ms": work_ms}
    report = build_report(args.paths, verify_args, progress=args.progress,
                          verifier=None if args.no_verify else "auto", training_loop=training_loop)
    try:
        written = write_report(report, args.out, plots=not args.no_plots)
    except OSError as e:
        print(f"dali-migrate report: cannot write to {args.out}: {e.strerror or e}", file=sys.stderr)
        return EXIT_ERROR
    except ImportError as e:
        print(f"dali-migrate report: plots need matplotlib ({e}); use --no-plots", file=sys.stderr)
        return EXIT_ERROR
    counts = report.file_counts()
    for f in report.files:
        if f.result.error:
            print(f"{f.result.path}: {f.result.error}", file=sys.stderr)
    print(f"dali-migrate report: {plural(counts['scanned'], 'file')}, {counts['using_dali']} use DALI, "
          f"{counts['migrated_with_markers']} with markers, {counts['failed']} failed; wrote "
          + ", ".join(str(p) for p in written), file=sys.stderr)
    if counts["failed"]:
        return EXIT_ERROR
    results = [f.result for f in report.files]
    return EXIT_PENDING if any(r.changed or r.manual for r in results) else EXIT_CLEAN
