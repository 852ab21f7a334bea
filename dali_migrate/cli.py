"""The ``dali-migrate`` command.

Each subcommand lives in its own module with ``add_arguments(parser)`` and ``run(args) -> int``;
only the module of the subcommand being run is imported, so ``migrate`` starts fast.
Exit codes for every subcommand: 0 nothing left to do, 1 changes pending or manual follow-ups
remain (or, for lint, findings remain), 2 usage, I/O or parse errors.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__

# name -> (module, one-line help)
SUBCOMMANDS = {
    "migrate": ("dali_migrate.cli_migrate", "migrate pipeline-mode code to dynamic mode (diff by default)"),
    "review": ("dali_migrate.cli_review", "write a review document of the migration: each hunk with its rules and why"),
    "report": ("dali_migrate.cli_report", "report what migrating a repo takes: report.md, report.json, plots"),
    "mcp": ("dali_migrate.cli_mcp", "serve the tools to AI agents over MCP (stdio, or HTTP on loopback)"),
    "skill": ("dali_migrate.cli_skill", "print, install or check the dynamic-mode agent skill"),
    "lint": ("dali_migrate.cli_lint", "review dynamic-mode code; --fix applies the safe fixes"),
    "verify": ("dali_migrate.cli_verify", "run a pipeline and its migration side by side and compare outputs"),
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dali-migrate",
        description="Migrate NVIDIA DALI pipeline-mode code to dynamic mode (nvidia.dali.experimental.dynamic).",
        epilog="Exit codes: 0 nothing left to do; 1 changes pending or manual follow-ups remain; "
               "2 usage, I/O or parse errors.",
    )
    parser.add_argument("--version", action="version", version=f"dali-migrate {__version__}")
    return parser


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = next((a for a in argv if not a.startswith("-")), None)
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sp = sub.add_parser(name, help=help_text, description=help_text)
        if name == chosen:
            module = importlib.import_module(module_name)
            module.add_arguments(sp)
            sp.set_defaults(_run=module.run)
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse exits 2 on usage errors, 0 on --help
        return int(e.code or 0)
    if not getattr(args, "_run", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return args._run(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
