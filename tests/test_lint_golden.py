"""The migration's own output lints clean: every ``golden/**/*.expected.py`` has no lint finding,
except on statements that carry a ``# dali-migrate: DMnnn`` marker (spots left for a person), and
the markers themselves, which lint reports as open findings.

Works for whatever golden cases exist; new ones are picked up automatically.
"""

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from dali_migrate.files import read_source
from dali_migrate.findings import MARKER_PREFIX
from dali_migrate.lint import lint_source
from dali_migrate.markers import EXISTING

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
EXPECTED = sorted(GOLDEN.rglob("*.expected.py"))


def marked_lines(text: str) -> set[int]:
    """Every line of every statement that has a migration marker comment above it."""
    module = cst.parse_module(text)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    lines: set[int] = set()
    for node, pos in positions.items():
        if not isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            continue
        comments = [ln.comment.value for ln in node.leading_lines if ln.comment is not None]
        if any(c.startswith(MARKER_PREFIX) and not c.startswith(MARKER_PREFIX + " ignore") for c in comments):
            lines.update(range(pos.start.line, pos.end.line + 1))
    return lines


@pytest.mark.parametrize("expected", EXPECTED, ids=[str(p.relative_to(GOLDEN)) for p in EXPECTED])
def test_migrated_code_lints_clean(expected):
    text = read_source(expected)
    result = lint_source(text, str(expected.relative_to(GOLDEN)))
    assert result.error is None, result.error
    allowed = marked_lines(text)
    unexpected = [f.format() for f in result.findings if f.line not in allowed and not f.extra.get(EXISTING)]
    assert unexpected == []
    # Each marker the migration wrote is an open finding of its own, on the marker's line.
    markers = [n for n, line in enumerate(text.splitlines(), 1)
               if line.lstrip().startswith(MARKER_PREFIX + " DM")]
    assert sorted(f.line for f in result.findings if f.extra.get(EXISTING)) == markers


def test_marked_lines_cover_the_statement_under_a_marker():
    text = ("import nvidia.dali.experimental.dynamic as ndd\n"
            "# dali-migrate: DM104 reader is not unrolled\n"
            "r = ndd.readers.File(\n    file_root='x',\n)\n"
            "y = 1\n")
    assert marked_lines(text) == {3, 4, 5}


def test_there_are_golden_outputs():
    assert EXPECTED
