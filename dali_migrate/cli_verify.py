"""``dali-migrate verify ORIGINAL.py --pipeline NAME [--migrated MIGRATED.py] [--args JSON] [--iterations N] [--json]``.

Exit codes: 0 the outputs are equal; 1 they differ, some outputs could not be compared, one side
crashed, or the pipeline is not migrated yet; 2 usage or I/O errors (bad file, name or arguments).
"""

from __future__ import annotations

import json
import sys

from . import __version__


def add_arguments(parser) -> None:
    parser.add_argument("original", metavar="ORIGINAL.py", help="the pipeline-mode file")
    parser.add_argument("--pipeline", required=True, metavar="NAME",
                        help="the pipeline to compare: a @pipeline_def function, a Pipeline subclass, a module-level "
                             "Pipeline object or a function returning one (the same name in the migrated file)")
    parser.add_argument("--migrated", metavar="MIGRATED.py",
                        help="the dynamic-mode file (default: migrate ORIGINAL.py in memory)")
    parser.add_argument("--args", metavar="JSON",
                        help='arguments for NAME on both sides: {"args": [...], "kwargs": {...}}, a list or an object')
    parser.add_argument("--iterations", type=int, default=5, metavar="N",
                        help="pipe.run() calls / migrated iterations to compare (default 5)")
    parser.add_argument("--atol", type=float, default=1e-5, help="absolute tolerance for floats (default 1e-5)")
    parser.add_argument("--rtol", type=float, default=1e-5, help="relative tolerance for floats (default 1e-5)")
    parser.add_argument("--throughput", action="store_true",
                        help="also measure samples/s of both (warm-up, repeats, median, ratio)")
    parser.add_argument("--warmup", type=int, default=3, metavar="N", help="warm-up iterations per side (default 3)")
    parser.add_argument("--repeats", type=int, default=5, metavar="N", help="timed repeats per side (default 5)")
    parser.add_argument("--timing-iterations", type=int, default=20, metavar="N",
                        help="iterations per timed repeat (default 20)")
    parser.add_argument("--no-feed-random", action="store_true",
                        help="do not feed the pipeline's random ops the migrated side's random states; outputs that "
                             "depend on random ops are then skipped (shape/dtype/layout checks only)")
    parser.add_argument("--json", action="store_true", help="print the machine-readable report")


def run(args) -> int:
    from .harness import HarnessError, Tolerance, parse_call_args, verify

    try:
        call_args, call_kwargs = parse_call_args(args.args)
        report = verify(args.original, args.pipeline, args.migrated, args=call_args, kwargs=call_kwargs,
                        iterations=args.iterations, tolerance=Tolerance(args.atol, args.rtol),
                        throughput=args.throughput, warmup=args.warmup, timing_iterations=args.timing_iterations,
                        repeats=args.repeats, feed_random=not args.no_feed_random)
    except HarnessError as e:
        if args.json:
            json.dump({"tool": "dali-migrate verify", "version": __version__, "error": str(e), "exit_code": 2},
                      sys.stdout, indent=2)
            sys.stdout.write("\n")
        print(f"dali-migrate verify: error: {e}", file=sys.stderr)
        return 2
    if args.json:
        json.dump({**report.to_dict(), "version": __version__}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(report.format())
    return report.exit_code
