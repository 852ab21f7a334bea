"""``dali-migrate skill``: print the dynamic-mode agent skill, ``--install DIR`` it, or ``--check`` it.

The skill is ``skills/dali-dynamic-mode/SKILL.md`` in the repository; the wheel ships an identical
copy under ``dali_migrate/data/skills/`` (a test keeps the two equal).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from .api import EXIT_CLEAN, EXIT_ERROR, EXIT_PENDING


def add_arguments(parser) -> None:
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--install", metavar="DIR",
                      help="copy the skill folder to DIR/dali-dynamic-mode (e.g. .claude/skills, .agents/skills)")
    mode.add_argument("--check", action="store_true",
                      help="run every code block of the skill against the installed DALI (needs DALI, numpy, pillow)")
    mode.add_argument("--path", action="store_true", help="print the folder the skill is read from")


def run(args) -> int:
    from . import skill_doc

    if args.path:
        print(skill_doc.PACKAGED_SKILL_DIR)
        return EXIT_CLEAN
    if args.install:
        try:
            dest = skill_doc.install(Path(args.install))
        except OSError as e:
            print(f"dali-migrate skill: cannot install into {args.install}: {e.strerror or e}", file=sys.stderr)
            return EXIT_ERROR
        print(f"dali-migrate: installed the skill in {dest}", file=sys.stderr)
        return EXIT_CLEAN
    text = skill_doc.load_skill_text()
    if not args.check:
        sys.stdout.write(text)
        return EXIT_CLEAN
    return _check(skill_doc, text)


def _check(skill_doc, text: str) -> int:
    try:
        import nvidia.dali  # noqa: F401
    except ImportError:
        print("dali-migrate skill --check: NVIDIA DALI is not installed", file=sys.stderr)
        return EXIT_ERROR
    failed = claims = 0
    with tempfile.TemporaryDirectory(prefix="dali-migrate-skill-") as tmp:
        for section, result, failure in skill_doc.iter_check(text, Path(tmp)):
            if failure is not None:
                failed += 1
                print(f"FAIL {failure}", file=sys.stderr)
                continue
            claims += result.claims
            note = f" (GPU blocks at lines {result.gpu_mapped} ran on the CPU)" if result.gpu_mapped else ""
            if result.skipped:
                note += "; skipped, a module is missing: " + ", ".join(
                    f"line {line} needs {module}" for line, module in result.skipped)
            print(f"ok   {section.title}: {result.claims} claims{note}")
    print(f"dali-migrate: {claims} claims held, {failed} sections failed", file=sys.stderr)
    return EXIT_PENDING if failed else EXIT_CLEAN
