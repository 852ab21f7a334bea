"""Markers already in a file are open findings (the marker contract in DESIGN.md).

A ``# dali-migrate: DMnnn <what and why>`` comment is a spot a person has not finished yet: after
``migrate --write`` the pipeline-mode code it stands above is still there. Every command that reports
on a file (``migrate`` in each mode, ``review``, ``report``, ``lint`` and so the MCP tools, which call
the same functions) reports each such marker as a manual finding, until a person removes the comment.

A marker the migration writes again on a later run (the same spot, still not migratable) is the same
finding, not a second one: a manual finding of this run stands for a marker already in the file when
it has the marker's rule and its text, or the rule and a line between the marker and the statement
it sits above. ``# dali-migrate: ignore[...]`` (lint's suppression) is not a marker.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass

from .findings import Finding

# The marker as ``findings.marker_text`` writes it; a person's spacing is forgiven.
_MARKER = re.compile(r"#\s*dali-migrate:\s*(DM\d+)\b\s*(.*?)\s*$")
EXISTING = "existing_marker"  # Finding.extra key: the finding is a marker found in the file


@dataclass(frozen=True)
class Marker:
    rule: str
    message: str
    line: int  # 1-based
    column: int  # 1-based, where the ``#`` is
    end_column: int  # just past the comment's last character
    statement_line: int  # the line of the code the marker stands above (its own for a trailing comment)


def find_markers(text: str) -> list[Marker]:
    """Every marker comment in ``text`` (Python code), in order."""
    if "dali-migrate:" not in text:
        return []
    comments = _comments(text)
    lines = text.splitlines()
    found = []
    for line, column, comment, trailing in comments:
        match = _MARKER.match(comment)
        if match is None:
            continue
        statement = line
        if not trailing:
            statement = next((n for n in range(line + 1, len(lines) + 1)
                              if lines[n - 1].strip() and not lines[n - 1].lstrip().startswith("#")), line)
        found.append(Marker(match.group(1), match.group(2), line, column + 1, column + 1 + len(comment.rstrip()),
                            statement))
    return found


def _comments(text: str) -> list[tuple[int, int, str, bool]]:
    """(line, 0-based column, comment, after code on its line) of each comment; for code that does not
    tokenize, each line whose first non-blank character is ``#``."""
    try:
        out = []
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                line, column = token.start
                out.append((line, column, token.string, bool(token.line[:column].strip())))
        return out
    except (tokenize.TokenError, SyntaxError):
        return [(n, len(raw) - len(raw.lstrip()), raw.strip(), False)
                for n, raw in enumerate(text.splitlines(), 1) if raw.lstrip().startswith("#")]


def marker_finding(marker: Marker, path: str, cell: int | None = None) -> Finding:
    return Finding(rule=marker.rule, message=marker.message, path=path, line=marker.line, column=marker.column,
                   end_line=marker.line, end_column=marker.end_column, fixed=False, cell=cell,
                   extra={EXISTING: True})


def _same_text(a: str, b: str) -> bool:
    return a.split() == b.split()


def open_markers(text: str, path: str, findings: list[Finding]) -> list[Finding]:
    """Findings for the markers in ``text`` that no manual finding in ``findings`` stands for."""
    markers = find_markers(text)
    if not markers:
        return []
    unmatched = [f for f in findings if not f.fixed]
    left = []
    for marker in markers:  # the same rule and text: the marker this run would write again
        match = min((f for f in unmatched if f.rule == marker.rule and _same_text(f.message, marker.message)),
                    key=lambda f: abs(f.line - marker.statement_line), default=None)
        if match is None:
            left.append(marker)
        else:
            unmatched.remove(match)
    out = []
    heads = _statement_heads(text) if left else {}
    for marker in left:  # the same rule on the statement below it: a marker whose text has changed since
        first, last = heads.get(marker.statement_line, (marker.statement_line, marker.statement_line))
        match = next((f for f in unmatched if f.rule == marker.rule and first <= f.line <= last), None)
        if match is None:
            out.append(marker_finding(marker, path))
        else:
            unmatched.remove(match)
    return out


def _statement_heads(text: str) -> dict[int, tuple[int, int]]:
    """First line -> (first, last line) of each statement's head: a simple statement whole; a compound
    statement from its first decorator to the line before its body."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    heads = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
        body = getattr(node, "body", None)
        last = body[0].lineno - 1 if isinstance(body, list) and body else (node.end_lineno or node.lineno)
        heads.setdefault(first, (first, max(first, last)))
    return heads


def drop_restated(findings: list[Finding]) -> list[Finding]:
    """``findings`` without the markers found in the file that another manual finding of the same rule,
    cell and text restates (a notebook's DM502 markers are found again after the cells are split)."""
    restated = {(f.rule, f.cell, " ".join(f.message.split())) for f in findings
                if not f.fixed and not f.extra.get(EXISTING)}
    return [f for f in findings
            if not (f.extra.get(EXISTING) and (f.rule, f.cell, " ".join(f.message.split())) in restated)]
