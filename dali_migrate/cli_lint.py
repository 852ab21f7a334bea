"""``dali-migrate lint PATH…``: review dynamic-mode code; ``--fix`` applies the safe fixes.

Output: ``path:line:col: DMnnn message`` per finding, sorted (``nb.ipynb:cell[3]:2:5`` in notebooks);
``--output-format json|sarif|github`` (``--json``) for machines and CI.
Exit codes: 0 clean, 1 findings remain, 2 usage, I/O or parse errors.
Suppress a finding with ``# dali-migrate: ignore[DMnnn]`` on its line (bare ``ignore``: all rules).
"""

from __future__ import annotations

import json
import sys

from . import __version__
from .output import add_format_arguments, github_annotations, plural, sarif_log


def add_arguments(parser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or folders (searched recursively)")
    parser.add_argument("--fix", action="store_true", help="apply the safe fixes in place (atomically), then lint again")
    parser.add_argument("--unsafe-fixes", action="store_true",
                        help="with --fix, also apply fixes that change what the code computes (review them)")
    add_format_arguments(parser)


def run(args) -> int:
    from .lint import lint_paths

    if args.unsafe_fixes and not args.fix:
        print("dali-migrate lint: --unsafe-fixes needs --fix", file=sys.stderr)
        return 2
    result = lint_paths(args.paths, fix=args.fix, unsafe_fixes=args.unsafe_fixes)
    code = result.exit_code()
    if args.output_format == "json":
        payload = {
            "tool": "dali-migrate", "version": __version__, "command": "lint", "exit_code": code,
            "summary": result.summary(),
            "findings": [f.to_dict() for f in result.findings],
            "errors": [{"path": r.path, "line": r.findings[0].line if r.findings else 1, "message": r.error}
                       for r in result.errors],
            "fixed": [f.to_dict() for r in result.files for f in r.fixed],
        }
        json.dump(payload, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return code
    errors = [f for r in result.errors for f in r.findings]
    if args.output_format == "sarif":
        json.dump(sarif_log([*errors, *result.findings], code), sys.stdout, indent=2)
        sys.stdout.write("\n")
        return code
    if args.output_format == "github":
        sys.stdout.write(github_annotations([*errors, *result.findings]))
    else:
        for r in result.errors:
            line = r.findings[0].line if r.findings else 1
            print(f"{r.path}:{line}: error: {r.error}", file=sys.stderr)
        for f in result.findings:
            print(f"{f.where}: {f.rule} {f.message}")
    s = result.summary()
    fixable = sum(1 for f in result.findings if f.extra.get("fix") == "safe")
    parts = [f"{plural(s['findings'], 'finding')} in {plural(s['files'], 'file')}"]
    if args.fix:
        parts.append(f"{s['fixed']} fixed ({plural(s['written'], 'file')} rewritten)")
    elif fixable:
        parts.append(f"{fixable} fixable with --fix")
    if s["errors"]:
        parts.append(plural(s["errors"], "error"))
    print("dali-migrate lint: " + ", ".join(parts), file=sys.stderr)
    return code
