"""``dali-migrate migrate PATH…``: print a unified diff (default), ``--write``, ``--check``; findings as text,
``--output-format json|sarif|github`` (``--json``).
"""

from __future__ import annotations

import json
import sys

from . import __version__, optable
from .api import EXIT_ERROR, migrate_paths
from .output import add_format_arguments, github_annotations, plural, sarif_log


def add_arguments(parser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or folders (searched recursively)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite changed files in place (atomically)")
    mode.add_argument("--check", action="store_true", help="only report; print no diff and write nothing")
    add_format_arguments(parser)
    # Repo scale (issue 8): file selection, workers, progress; defaults from pyproject [tool.dali-migrate].
    scale = parser.add_argument_group("file selection and speed (defaults from pyproject.toml [tool.dali-migrate])")
    scale.add_argument("-j", "--jobs", type=_positive_int, metavar="N",
                       help="worker processes (default: all cores)")
    scale.add_argument("--include", action="append", metavar="GLOB",
                       help="take only files matching this .gitignore-style glob (repeatable; "
                            "default: *.py and *.ipynb)")
    scale.add_argument("--exclude", action="append", metavar="GLOB",
                       help="skip files and folders matching this glob (repeatable; added to the config's)")
    scale.add_argument("--no-gitignore", dest="respect_gitignore", action="store_false", default=None,
                       help="also take files that .gitignore ignores")
    scale.add_argument("--progress", dest="progress", action="store_true", default=None,
                       help="draw a progress bar on stderr even when it is not a terminal")
    scale.add_argument("--no-progress", dest="progress", action="store_false", help="never draw a progress bar")
    scale.add_argument("--config", metavar="PYPROJECT", help="read [tool.dali-migrate] from this file "
                       "(default: the nearest pyproject.toml that has the table)")


def _positive_int(text: str) -> int:
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def run(args) -> int:
    from .config import ConfigError

    try:
        result = migrate_paths(args.paths, write=args.write, jobs=args.jobs, include=args.include,
                               exclude=args.exclude, respect_gitignore=args.respect_gitignore,
                               progress=args.progress, config=args.config)
    except ConfigError as e:
        print(f"dali-migrate: configuration error: {e}", file=sys.stderr)
        return EXIT_ERROR
    code = result.exit_code(wrote=args.write)
    if args.output_format == "json":
        payload = {
            "tool": "dali-migrate",
            "version": __version__,
            "dali_table_version": optable.dali_version(),
            "mode": "write" if args.write else "check" if args.check else "diff",
            "exit_code": code,
            "summary": result.summary(),
            "files": [f.to_dict(with_code=not args.check) for f in result.files if f.reported],
        }
        json.dump(payload, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return code
    # After --write only what a person must do (and errors) is left; otherwise every pending change too.
    pending = [x for f in result.files for x in f.findings if not (args.write and x.fixed)]
    if args.output_format == "sarif":
        json.dump(sarif_log(pending, code), sys.stdout, indent=2)
        sys.stdout.write("\n")
        return code
    if args.output_format == "github":
        sys.stdout.write(github_annotations(pending))
    else:
        for f in result.files:
            if not args.check and not args.write and f.changed:
                sys.stdout.write(f.diff())
            for finding in f.findings:
                if not finding.fixed or args.check:
                    print(finding.format(), file=sys.stderr if f.error else sys.stdout)
    s = result.summary()
    verb = "rewritten" if args.write else "would change"
    print(f"dali-migrate: {plural(s['files'], 'file')}, {s['changed']} {verb}, {s['manual_findings']} need a person, "
          f"{plural(s['errors'], 'error')}", file=sys.stderr)
    for f in result.files:  # where the run-time helpers went (the one helper module of the run)
        for finding in f.findings:
            if finding.rule == "DM224" and not f.error:
                print(f"dali-migrate: helper module {f.path}: {finding.message}", file=sys.stderr)
    return code
