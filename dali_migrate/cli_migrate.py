"""``dali-migrate migrate PATH…``: print a unified diff (default), ``--write``, ``--check``, ``--json``."""

from __future__ import annotations

import json
import sys

from . import __version__, optable
from .api import EXIT_ERROR, migrate_paths


def add_arguments(parser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or folders (searched recursively)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite changed files in place (atomically)")
    mode.add_argument("--check", action="store_true", help="only report; print no diff and write nothing")
    parser.add_argument("--json", action="store_true", help="print the machine-readable result")


def run(args) -> int:
    result = migrate_paths(args.paths, write=args.write)
    code = result.exit_code(wrote=args.write)
    if args.json:
        payload = {
            "tool": "dali-migrate",
            "version": __version__,
            "dali_table_version": optable.dali_version(),
            "mode": "write" if args.write else "check" if args.check else "diff",
            "exit_code": code,
            "summary": result.summary(),
            "files": [f.to_dict(with_code=not args.check) for f in result.files if f.uses_dali or f.error],
        }
        json.dump(payload, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return code
    for f in result.files:
        if not args.check and not args.write and f.changed:
            sys.stdout.write(f.diff())
        for finding in f.findings:
            if not finding.fixed or args.check:
                print(finding.format(), file=sys.stderr if f.error else sys.stdout)
    s = result.summary()
    verb = "rewritten" if args.write else "would change"
    print(f"dali-migrate: {s['files']} files, {s['changed']} {verb}, {s['manual_findings']} need a person, "
          f"{s['errors']} errors", file=sys.stderr)
    return code if code != EXIT_ERROR else EXIT_ERROR
