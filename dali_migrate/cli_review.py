"""``dali-migrate review PATH…``: a review document of the migration (Markdown, or ``--html``).

Writes nothing to the sources. The document goes to ``--output FILE`` or stdout. Exit codes as for
``migrate``: 0 nothing to change, 1 changes or spots for a person, 2 errors.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .api import EXIT_CLEAN, EXIT_ERROR, EXIT_PENDING
from .output import plural


def add_arguments(parser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or folders (searched recursively)")
    parser.add_argument("--html", action="store_true", help="one self-contained HTML page instead of Markdown")
    parser.add_argument("-o", "--output", type=Path, metavar="FILE", help="write the review here (default: stdout)")


def run(args) -> int:
    from .review import migrate_for_review, build_review, to_html, to_markdown

    results = migrate_for_review(args.paths)
    review = build_review(results)
    text = to_html(review) if args.html else to_markdown(review)
    if args.output:
        try:
            args.output.parent.mkdir(parents=True, exist_ok=True)
            args.output.write_text(text, encoding="utf-8")
        except OSError as e:
            print(f"dali-migrate review: cannot write {args.output}: {e.strerror or e}", file=sys.stderr)
            return EXIT_ERROR
    else:
        sys.stdout.write(text)
    for f in results:
        if f.error:
            print(f"{f.path}: {f.error}", file=sys.stderr)
    markers = sum(len(f.markers) for f in review.files)
    changed = sum(1 for f in review.files if f.hunks)
    print(f"dali-migrate review: {plural(len(results), 'file')}, {changed} would change, {markers} need a person, "
          f"{plural(sum(1 for f in results if f.error), 'error')}"
          + (f"; wrote {args.output}" if args.output else ""), file=sys.stderr)
    if any(f.error for f in results):
        return EXIT_ERROR
    return EXIT_PENDING if changed or markers else EXIT_CLEAN
