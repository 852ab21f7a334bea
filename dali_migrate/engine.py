"""The engine: parse once, run the passes in order over one tree, collect findings.

Safety rules live here: a file that does not parse, or that libcst does not print back
byte-identical, is reported and left untouched; so is a file on which a pass fails.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from .findings import Finding, rule
from .names import ImportTable

PARSE_ERROR = rule(
    "DM001", "parse-error", "error",
    "The file does not parse, is not UTF-8, or does not print back byte-identical; it is left untouched.",
    "A migration that cannot reproduce the file exactly could lose code, so the file is skipped.",
    fix="manual",
    suggestion="Fix the syntax error (or re-save the file as UTF-8) and run dali-migrate again.",
)
INTERNAL_ERROR = rule(
    "DM002", "internal-error", "error",
    "A migration pass failed on this file; it is left untouched.",
    "Never write a half-migrated file: the whole file is skipped and the failure is reported.",
    fix="manual",
    suggestion="Report the file to the dali-migrate maintainers; migrate it by hand meanwhile.",
)


def might_use_dali(text: str) -> bool:
    """Cheap text check before any parsing: a file that never says "dali" cannot import it."""
    return "dali" in text


@dataclass
class MigrationContext:
    """What the passes share while migrating one module."""

    path: str
    source: str
    imports: ImportTable
    positions: dict[cst.CSTNode, tuple[int, int]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    # Pipelines found by discovery, by name; unrolling and later passes read and extend them.
    pipelines: dict[str, Any] = field(default_factory=dict)
    # Free-form facts one pass leaves for a later one (documented where they are written).
    facts: dict[str, Any] = field(default_factory=dict)

    def position(self, node: cst.CSTNode | None) -> tuple[int, int]:
        if node is None:
            return (0, 0)
        return self.positions.get(node, (0, 0))

    def report(self, rule_id: str, message: str, node: cst.CSTNode | None = None, *, fixed: bool = True,
               line: int | None = None) -> Finding:
        found_line, column = self.position(node)
        finding = Finding(rule=rule_id, message=message, path=self.path,
                          line=line if line is not None else found_line, column=column, fixed=fixed)
        self.findings.append(finding)
        return finding


@dataclass
class MigrationResult:
    path: str
    original: str
    migrated: str
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None
    uses_dali: bool = False

    @property
    def changed(self) -> bool:
        return self.error is None and self.migrated != self.original

    @property
    def manual(self) -> list[Finding]:
        return [f for f in self.findings if not f.fixed]

    @property
    def status(self) -> str:
        if self.error:
            return "error"
        if not self.uses_dali:
            return "no-dali"
        if self.manual:
            return "needs-attention"
        return "migrated" if self.changed else "clean"

    def diff(self, context: int = 3) -> str:
        if not self.changed:
            return ""
        return "".join(difflib.unified_diff(
            self.original.splitlines(keepends=True), self.migrated.splitlines(keepends=True),
            fromfile=f"a/{self.path}", tofile=f"b/{self.path}", n=context))

    def to_dict(self, with_code: bool = False) -> dict:
        d = {
            "path": self.path,
            "status": self.status,
            "changed": self.changed,
            "error": self.error,
            "findings": [f.to_dict() for f in self.findings],
        }
        if with_code:
            d["migrated"] = self.migrated
            d["diff"] = self.diff()
        return d


def _positions(module: cst.Module) -> dict[cst.CSTNode, tuple[int, int]]:
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    return {node: (r.start.line, r.start.column) for node, r in wrapper.resolve(PositionProvider).items()}


def migrate_source(source: str, path: str = "<string>", passes=None, project=None) -> MigrationResult:
    """Migrate one module's text. Never raises for bad input: errors go into the result.

    ``project`` (``dali_migrate.project.Project``, optional): the pipelines other files define; a module
    that imports and uses one is migrated even when it does not import DALI itself."""
    from .transforms import PASSES

    result = MigrationResult(path=path, original=source, migrated=source)
    if not might_use_dali(source) and not (project and project.mentioned_in(source)):
        return result
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as e:
        return _fail(result, PARSE_ERROR.id, f"does not parse: {e.message}", e.raw_line)
    except RecursionError:
        return _fail(result, PARSE_ERROR.id, "too deeply nested for the parser", 0)
    if module.code != source:
        return _fail(result, PARSE_ERROR.id, "libcst does not print this file back byte-identical", 0)
    imports = ImportTable.from_module(module)
    if not imports.uses_dali() and not (project and project.imported_by(imports)):
        return result
    result.uses_dali = True
    ctx = MigrationContext(path=path, source=source, imports=imports)
    if project:
        ctx.facts["project"] = project
    try:
        ctx.positions = _positions(module)
        for migration_pass in passes if passes is not None else PASSES:
            if migration_pass.applies(ctx):
                module = migration_pass.run(module, ctx)
        migrated = module.code
    except RecursionError:
        return _fail(result, INTERNAL_ERROR.id, "too deeply nested to transform (RecursionError)", 0)
    except Exception as e:  # a pass bug must not lose or half-write user code
        return _fail(result, INTERNAL_ERROR.id, f"internal error: {type(e).__name__}: {e}", 0)
    result.migrated = migrated
    result.findings = sorted(ctx.findings, key=lambda f: (f.line, f.column, f.rule))
    return result


def _fail(result: MigrationResult, rule_id: str, message: str, line: int) -> MigrationResult:
    result.error = message
    result.migrated = result.original
    result.findings = [Finding(rule=rule_id, message=message, path=result.path, line=line, fixed=False)]
    return result
