"""What the passes share while migrating one module (``MigrationContext``): the source, the import table,
node positions, findings, facts one pass leaves for the next. Below the engine and the passes, which both
read it; it imports nothing of the passes.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from .findings import Finding
from .names import ImportTable
from .source import WORD, Layout


@dataclass
class MigrationContext:
    """What the passes share while migrating one module."""

    path: str
    source: str
    imports: ImportTable
    # Where each node of the parsed module starts, as a token index of ``layout`` (``position`` turns
    # it into a line and column of the file). Passes carry these to the nodes they build.
    positions: dict[cst.CSTNode, int] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    # Pipelines found by discovery, by name; unrolling and later passes read and extend them.
    pipelines: dict[str, Any] = field(default_factory=dict)
    # Free-form facts one pass leaves for a later one (documented where they are written).
    facts: dict[str, Any] = field(default_factory=dict)
    # The printed parsed module: where each of its nodes is (``span``). A pass leaves a subtree it has
    # nothing to do in untouched (``MigrationTransformer``), so nodes keep their identity, and their
    # text, from pass to pass; rebuilt nodes have no span.
    layout: "Layout | None" = None
    # The top-level statements left out of the parse (``elision``), or None when the whole file was parsed.
    elision: Any = None
    # Nodes of what a pass built whole from a text (templates parsed with ``parse_statement``, the
    # EpochIterator class), each with the names in its subtree: later passes skip such a subtree when it
    # has none of their words, as they skip unchanged text.
    built_words: dict[cst.CSTNode, frozenset] = field(default_factory=dict)
    # Migration units that stay in pipeline mode (their origins), and their statements in the parsed
    # module, which no pass enters (``units.py``; set by ``_migrate_units``).
    kept: frozenset = frozenset()
    kept_statements: set = field(default_factory=set)
    _identifiers: dict[str, list[int]] | None = field(default=None, repr=False)
    _mention_cache: dict[frozenset, list[int]] = field(default_factory=dict, repr=False)

    def mention_offsets(self, names: frozenset) -> list[int]:
        """Sorted offsets in the source of every identifier-like word in ``names`` (in code, strings
        or comments alike: a superset of the references, which is the safe side)."""
        found = self._mention_cache.get(names)
        if found is None:
            if self._identifiers is None:
                self._identifiers = {}
                for match in WORD.finditer(self.source):
                    self._identifiers.setdefault(match.group(), []).append(match.start())
            found = sorted(offset for name in names for offset in self._identifiers.get(name, ()))
            self._mention_cache[names] = found
        return found

    def may_mention(self, node: cst.CSTNode, names: frozenset) -> bool:
        """False only when ``node`` is an unchanged node of the parsed module whose text contains none
        of ``names``, or a subtree in ``built_words`` without them; True for anything else a pass built
        (no span) or whose text has one of them."""
        layout = self.layout
        extent = layout.extents.get(node) if layout is not None else None
        if extent is None:
            words = self.built_words.get(node)
            return words is None or not words.isdisjoint(names)
        offsets = self.mention_offsets(names)
        start = layout.offsets[extent[0]]
        index = bisect_left(offsets, start)
        return index < len(offsets) and offsets[index] < layout.offsets[extent[1]]

    def span(self, node: cst.CSTNode) -> tuple[int, int] | None:
        """``(start, end)`` offsets in ``source`` of an unchanged node of the parsed module, else None."""
        return self.layout.span(node) if self.layout is not None else None

    def position(self, node: cst.CSTNode | None) -> tuple[int, int]:
        """(line, column) in the file of a node of the parsed module, or of the one a pass built it
        from, both 1-based; (0, 0) when it has none."""
        token = self.positions.get(node) if node is not None else None
        if token is None or self.layout is None:
            return (0, 0)
        line, column = self.layout.line_column(token)
        return self._file_line(line), column + 1

    def end_position(self, node: cst.CSTNode | None) -> tuple[int, int]:
        """(line, column just past the last character) in the file of an unchanged node of the parsed
        module, trailing blanks and line breaks left out; (0, 0) for a node without a span."""
        span = self.span(node) if node is not None else None
        if span is None:
            return (0, 0)
        start, end = span
        while end > start and self.source[end - 1] in " \t\r\n\\":
            end -= 1
        line, column = self.layout.offset_line_column(end)
        return self._file_line(line), column + 1

    def _file_line(self, line: int) -> int:
        return self.elision.original_line(line) if self.elision is not None else line

    def report(self, rule_id: str, message: str, node: cst.CSTNode | None = None, *, fixed: bool = True,
               line: int | None = None) -> Finding:
        found_line, column = self.position(node)
        end_line, end_column = self.end_position(node) if line is None else (0, 0)
        finding = Finding(rule=rule_id, message=message, path=self.path,
                          line=line if line is not None else found_line, column=column, fixed=fixed,
                          end_line=end_line, end_column=end_column)
        self.findings.append(finding)
        return finding



class NeedsWholeFile(Exception):
    """A pass or the flow model needs a statement elision left out (a definition hot code hands a DALI
    value to, the value of a name an argument rewrite reads): migrate the file whole instead."""


def needs_whole_file(ctx: MigrationContext, names) -> None:
    """Raise NeedsWholeFile when one of ``names`` is bound by a statement elision left out."""
    left_out = ctx.elision.bound() if ctx.elision is not None else set()
    if not left_out.isdisjoint(names):
        raise NeedsWholeFile(sorted(left_out & set(names)))

