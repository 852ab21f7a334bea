"""``dali-migrate verify``: compare a migration with the original by running both. Two forms:

``dali-migrate verify ORIGINAL.py --pipeline NAME [--migrated MIGRATED.py] [--args JSON] [--iterations N] [--json]``
    one pipeline: its outputs, output by output and sample by sample (``harness.runner``).

``dali-migrate verify --run "python train.py --steps 3" [PATH] [--outputs DIR] [--timeout S] [--json]``
    a whole program: PATH (the project folder, default ".") is copied twice to a scratch folder, one copy
    is migrated, the command runs in both (devices mapped to the CPU without a GPU), and exit status,
    stdout (numbers within --atol/--rtol) and the files under --outputs DIR are compared; the first line
    or file that differs is named (``harness.programs``). Without --outputs, the project's
    ``verify-outputs`` setting applies.

Exit codes: 0 equal; 1 they differ, some outputs could not be compared, one side crashed or timed out,
or the pipeline is not migrated yet; 2 usage or I/O errors (bad file, name, arguments or folder).
"""

from __future__ import annotations

import json
import sys

from . import __version__


# Options of the one-pipeline form, and of the program form: mixing them is a usage error.
PIPELINE_OPTIONS = ("pipeline", "migrated", "args", "iterations", "throughput", "warmup", "repeats",
                    "timing_iterations", "no_feed_random", "consumer_ms", "consumer", "runs")
PROGRAM_OPTIONS = ("outputs", "timeout")


def add_arguments(parser) -> None:
    parser.add_argument("original", metavar="ORIGINAL.py | PATH", nargs="?",
                        help="the pipeline-mode file (with --pipeline), or the project folder (with --run; "
                             "default .)")
    parser.add_argument("--run", metavar="COMMAND",
                        help='verify a whole program: the command to run in both copies, e.g. '
                             '"python train.py --steps 3" (split like a shell would, but run without one)')
    parser.add_argument("--outputs", metavar="DIR",
                        help="with --run: a folder (relative to PATH) whose files the program writes; they are "
                             "compared too")
    parser.add_argument("--timeout", type=float, metavar="S",
                        help="with --run: seconds each run may take before it is killed (default 600)")
    parser.add_argument("--pipeline", metavar="NAME",
                        help="the pipeline to compare: a @pipeline_def function, a Pipeline subclass, a module-level "
                             "Pipeline object or a function returning one (the same name in the migrated file)")
    parser.add_argument("--migrated", metavar="MIGRATED.py",
                        help="the dynamic-mode file (default: migrate ORIGINAL.py in memory)")
    parser.add_argument("--args", metavar="JSON",
                        help='arguments for NAME on both sides: {"args": [...], "kwargs": {...}}, a list or an object')
    parser.add_argument("--iterations", type=int, metavar="N",
                        help="pipe.run() calls / migrated iterations to compare (default 5)")
    parser.add_argument("--atol", type=float, default=1e-5, help="absolute tolerance for floats (default 1e-5)")
    parser.add_argument("--rtol", type=float, default=1e-5, help="relative tolerance for floats (default 1e-5)")
    parser.add_argument("--throughput", action="store_true",
                        help="also measure samples/s of both (warm-up, repeats, median, ratio)")
    parser.add_argument("--warmup", type=int, metavar="N", help="warm-up iterations per side (default 3)")
    parser.add_argument("--repeats", type=int, metavar="N", help="timed repeats per side (default 5)")
    parser.add_argument("--timing-iterations", type=int, metavar="N",
                        help="iterations per timed repeat (default 20)")
    parser.add_argument("--consumer-ms", metavar="MS,...",
                        help="also time both as a training loop whose step converts every output (--consumer) and then "
                             "works MS milliseconds, for each MS given (e.g. 0,10,20); each side runs in its own "
                             "processes, alternating; ratios per MS and per CPU-second")
    parser.add_argument("--consumer", choices=("numpy", "torch"),
                        help="with --consumer-ms: how outputs are converted (default numpy: as_array() / "
                             "np.array(ndd.as_tensor(b)); torch: feed_ndarray as DALIGenericIterator / b.torch())")
    parser.add_argument("--runs", type=int, metavar="N",
                        help="with --consumer-ms: processes per side and MS (default 3; medians are reported)")
    parser.add_argument("--no-feed-random", action="store_true",
                        help="do not feed the pipeline's random ops the migrated side's random states; outputs that "
                             "depend on random ops are then skipped (shape/dtype/layout checks only)")
    parser.add_argument("--json", action="store_true", help="print the machine-readable report")


def _given(args, names) -> list[str]:
    return ["--" + name.replace("_", "-") for name in names if getattr(args, name) not in (None, False)]


def _usage_error(args, message: str) -> int:
    if args.json:
        json.dump({"tool": "dali-migrate verify", "version": __version__, "error": message, "exit_code": 2},
                  sys.stdout, indent=2)
        sys.stdout.write("\n")
    print(f"dali-migrate verify: error: {message}", file=sys.stderr)
    return 2


def run(args) -> int:
    if args.run is not None:
        mixed = _given(args, PIPELINE_OPTIONS)
        if mixed:
            return _usage_error(args, f"--run verifies a whole program; {', '.join(mixed)} belong to the "
                                      f"one-pipeline form (verify ORIGINAL.py --pipeline NAME)")
        return _run_program(args)
    if args.original is None or args.pipeline is None:
        mixed = _given(args, PROGRAM_OPTIONS)
        hint = f" ({', '.join(mixed)} belong to the --run form)" if mixed else ""
        return _usage_error(args, "give ORIGINAL.py --pipeline NAME (one pipeline) or --run COMMAND [PATH] "
                                  f"(a whole program){hint}")
    mixed = _given(args, PROGRAM_OPTIONS)
    if mixed:
        return _usage_error(args, f"{', '.join(mixed)} belong to the --run form (verify --run COMMAND PATH)")
    return _run_pipeline(args)


def _print_report(args, report) -> int:
    """A VerifyReport or ProgramReport, as JSON or text; its exit code."""
    if args.json:
        json.dump({**report.to_dict(), "version": __version__}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(report.format())
    return report.exit_code


def _run_program(args) -> int:
    from .config import ConfigError, config_for
    from .harness.programs import verify_program

    root = args.original or "."
    outputs = args.outputs
    if outputs is None:
        try:
            outputs = config_for([root]).verify_outputs
        except ConfigError as e:
            return _usage_error(args, str(e))
    report = verify_program(root, args.run, outputs=outputs, timeout_s=600.0 if args.timeout is None else args.timeout,
                            atol=args.atol, rtol=args.rtol)
    if report.verdict == "error":
        return _usage_error(args, report.error)
    return _print_report(args, report)


def _run_pipeline(args) -> int:
    from .harness import HarnessError, Tolerance, parse_call_args, verify

    training_loop = None
    if args.consumer_ms is not None:
        from .harness.training_loop import parse_work_ms

        work_ms = parse_work_ms(args.consumer_ms)
        if work_ms is None:
            return _usage_error(args, f"--consumer-ms: expected milliseconds >= 0 separated by commas, "
                                      f"got {args.consumer_ms!r}")
        if args.runs is not None and args.runs < 1:
            return _usage_error(args, "--runs must be at least 1")
        training_loop = {"work_ms": work_ms, "runs": 3 if args.runs is None else args.runs,
                         "consumer": args.consumer or "numpy"}
    elif args.consumer is not None or args.runs is not None:
        return _usage_error(args, "--consumer and --runs belong to --consumer-ms")
    try:
        call_args, call_kwargs = parse_call_args(args.args)
        report = verify(args.original, args.pipeline, args.migrated, args=call_args, kwargs=call_kwargs,
                        iterations=5 if args.iterations is None else args.iterations,
                        tolerance=Tolerance(args.atol, args.rtol), throughput=args.throughput,
                        warmup=3 if args.warmup is None else args.warmup,
                        timing_iterations=20 if args.timing_iterations is None else args.timing_iterations,
                        repeats=5 if args.repeats is None else args.repeats, feed_random=not args.no_feed_random,
                        training_loop=training_loop)
    except HarnessError as e:
        return _usage_error(args, str(e))
    return _print_report(args, report)
