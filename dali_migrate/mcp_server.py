"""The MCP server: dali-migrate's functions as tools for AI coding agents.

A thin adapter over the functions the CLI uses (``api``, ``lint``, ``review``, ``harness``), built on
the official SDK's ``MCPServer``. What it adds is what an agent needs to drive them well:

* **A safe order** (the server's instructions say it): dry run (``migrate_paths``), ``verify``,
  write (``migrate_paths write=true``), ``lint_paths``, ``review``. A write keeps each file's text
  from before under ``.dali-migrate/originals/<path>`` (``files.keep_original``; folder walks skip
  hidden folders), and ``verify``/``review`` use that kept original by default afterwards, so the
  agent never makes its own backup.
* **Errors the model can act on** (MCP 2025-11-25, SEP-1303): a bad argument (wrong type, out of
  bounds, unknown name), a path outside the root or missing, an oversized input, a snippet that
  does not parse, a pipeline name that is not one, a verify timeout: each is a tool result with
  ``isError: true`` whose text says how to fix the call. JSON-RPC errors are kept for protocol
  faults (an unknown tool, a malformed request). Every verify answer carries its verdict.
* **Compact answers**: ``detail="summary"`` (the default) gives statuses, counts and the findings a
  person must act on; ``detail="full"`` adds every finding, the diffs and sources (one path: one
  file's diff). The text content is a short human summary; the structured content carries the data
  once, validated against the tool's output schema.
* **Schemas an agent can act on**: every parameter has a description, numbers have bounds, unknown
  arguments are refused (``additionalProperties: false``), and tools carry annotations
  (``readOnlyHint``, ``destructiveHint``, ``idempotentHint``, ``openWorldHint``).
* **The whole program** (``verify_program``): only the command a person configured as ``verify-command``
  in ``<root>/pyproject.toml`` runs (never one from the call: a client gains no shell), in copies made
  inside the root (``.dali-migrate/runs/``, removed afterwards), with verify's time limit.
* **Notebooks in every tool**: migrate, lint, review; verify runs the code cells up to the one that
  defines the pipeline (or the ``cells`` given), with magics and shell lines left out, and errors
  name the cell.

Security: the server reads and writes only under the workspace root it was started with (paths are
resolved, so ``..`` and symbolic links that leave the root are refused), refuses oversized inputs,
writes only when a call asks for it, and runs user code only for ``verify`` (in a child process in
its own session, killed with everything it started after ``timeout_s``) and ``verify_program``.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp_types import INVALID_PARAMS, CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from . import __version__, optable
from .api import migrate_file
from .engine import MigrationResult, migrate_source
from .files import (ORIGINALS_DIR, STATE_DIR, atomic_write, iter_source_files, keep_original, kept_original,
                    state_dir)

MAX_SOURCE_BYTES = 1_000_000  # one file or snippet
MAX_FILES = 5_000  # one call over paths
MAX_PATHS = 1_000
MAX_VERIFY_ITERATIONS = 50
MAX_VERIFY_SECONDS = 600


class ToolFailure(Exception):
    """A call the server refuses or could not carry out: an ``isError`` result whose text says what to
    change. ``data``: structured content that still goes with it (verify's verdict)."""

    def __init__(self, message: str, data: BaseModel | None = None):
        super().__init__(message)
        self.data = data


# -- output models: what structuredContent carries (one copy; the text content is a summary) ---------

Status = Literal["migrated", "needs-attention", "clean", "no-dali", "error", "created"]


class FindingOut(BaseModel):
    rule: str = Field(description="stable rule ID, e.g. DM101; explain_rule says what it means")
    severity: Literal["error", "warning", "info"]
    line: int = Field(description="1-based line in the original; in a notebook, within `cell`")
    column: int = Field(description="1-based column")
    file_level: bool | None = Field(None, description="true: about the whole file (shown at line 1)")
    cell: int | None = Field(None, description="notebooks: 1-based cell number, markdown cells counted")
    fixed: bool = Field(description="true: the tool handled it; false: a person must act (the code carries a "
                                    "`# dali-migrate: DMnnn` marker)")
    message: str


class MigrateCodeResult(BaseModel):
    status: Status = Field(description="migrated | needs-attention (spots for a person) | clean (nothing to "
                                       "change) | no-dali")
    changed: bool
    findings: list[FindingOut] = Field(description="summary: the findings a person must act on; full: all")
    rewrites: dict[str, int] | None = Field(None, description="summary: how many rewrites the tool made, per rule")
    migrated: str | None = Field(None, description="the migrated code (when it changed)")
    diff: str | None = Field(None, description="full only: the unified diff")


class MigratedFile(BaseModel):
    path: str = Field(description="relative to the workspace root")
    status: Status
    changed: bool = Field(description="the migration changes this file (after a write: it did)")
    written: bool | None = Field(None, description="write=true: the file was rewritten")
    original_kept: str | None = Field(None, description="where the text from before the write is kept")
    error: str | None = Field(None, description="why the file was left untouched")
    pipelines: list[str] | None = Field(None, description="pipelines defined here, as name(parameters): what "
                                                          "verify's `pipeline` takes")
    rewrites: dict[str, int] | None = Field(None, description="summary: how many rewrites per rule")
    findings: list[FindingOut] = Field(description="summary: the findings a person must act on; full: all")
    diff: str | None = Field(None, description="full only: the unified diff (notebooks: per cell)")


class PathCounts(BaseModel):
    files: int = Field(description="source files looked at")
    dali: int = Field(description="files that use DALI (listed in `files`, with any file that failed)")
    changed: int
    written: int
    manual: int = Field(description="findings a person must act on")
    errors: int


class MigratePathsResult(BaseModel):
    write: bool
    exit_code: int = Field(description="the CLI's: 0 nothing left to do, 1 changes pending or spots for a "
                                        "person, 2 errors")
    counts: PathCounts
    files: list[MigratedFile]
    next_step: str


class LintCodeResult(BaseModel):
    findings: list[FindingOut] = Field(description="what remains (after the fixes, with fix=true)")
    fixed: list[FindingOut] = Field(description="findings the applied fixes removed")
    fixed_source: str | None = Field(None, description="the source after the fixes (when any applied)")


class LintedFile(BaseModel):
    path: str
    error: str | None = None
    written: bool | None = Field(None, description="fix=true: the file was rewritten")
    findings: list[FindingOut]
    fixed: list[FindingOut] = Field(description="findings the applied fixes removed")
    diff: str | None = Field(None, description="full only: what the fixes changed")


class LintCounts(BaseModel):
    files: int
    findings: int
    fixed: int
    written: int
    errors: int


class LintPathsResult(BaseModel):
    fix: bool
    exit_code: int = Field(description="0 clean, 1 findings remain, 2 errors")
    counts: LintCounts
    files: list[LintedFile] = Field(description="files with findings, fixes or errors")
    next_step: str


class ReviewMarker(BaseModel):
    rule: str
    line: int = Field(description="line in the original file (in a notebook: within `cell`)")
    cell: int | None = None
    migrated_line: int = Field(description="line of the `# dali-migrate:` marker in the migrated code")
    message: str
    suggestion: str


class ReviewedFile(BaseModel):
    path: str
    status: Status
    error: str | None = None
    reviewed_from: str | None = Field(None, description="the kept original this review migrated (the file "
                                                        "itself is already written)")
    note: str | None = None
    hunks: int = Field(description="diff hunks")
    rules: list[str] = Field(description="rule IDs behind this file's changes")
    markers: list[ReviewMarker] = Field(description="spots left for a person, each with a suggestion")


class ReviewResult(BaseModel):
    files: list[ReviewedFile]
    rule_counts: dict[str, int]
    format: Literal["markdown", "html"]
    document: str | None = Field(None, description="full only: the review document: each hunk with its rules "
                                                   "and why, then the markers")


class VerifyOutput(BaseModel):
    index: int
    name: str
    status: Literal["equal", "different", "skipped"]
    reason: str | None = None
    random_handling: str | None = Field(None, description="'fed': random ops got the same states on both sides; "
                                                          "'skipped': random values not compared")
    samples_compared: int
    samples_different: int
    max_abs_error: float | None = None
    first_mismatches: list[str] | None = Field(None, description="full only: up to 5 mismatches")


class VerifyResult(BaseModel):
    verdict: Literal["equal", "partial", "different", "failed", "incomplete"] = Field(
        description="equal; partial = equal where compared, some outputs not comparable; different; failed = "
                    "a side crashed or ran out of time; incomplete = not migrated, or the call must change")
    equal: bool
    iterations: int
    original: str = Field(description="what ran as the original side")
    migrated: str = Field(description="what ran as the migrated side")
    cells: list[int] | None = Field(None, description="notebooks: the cells that ran")
    outputs: list[VerifyOutput]
    devices: str = Field(description="where it ran (without a GPU, gpu/mixed were mapped to cpu on both sides)")
    error: str | None = None
    hint: str | None = Field(None, description="what to do next")
    notes: list[str] | None = Field(None, description="full only")
    device_mappings: list[str] | None = Field(None, description="full only")


class ProgramRunOut(BaseModel):
    exit_code: int | None = Field(None, description="null: it did not finish")
    timed_out: bool
    seconds: float
    stdout_tail: str | None = Field(None, description="full only")
    stderr_tail: str | None = Field(None, description="full only (at summary too when this side failed)")


class ProgramResult(BaseModel):
    verdict: Literal["equal", "different", "original-failed", "migrated-failed", "timeout", "error"]
    outcome: str = Field(description="the verdict with what the migration said: marked-equal / marked-different "
                                      "when it left markers or reported a difference")
    command: str = Field(description="the configured verify-command that ran in both copies")
    outputs: str | None = Field(None, description="the configured verify-outputs folder, compared file by file")
    original: ProgramRunOut | None = None
    migrated: ProgramRunOut | None = None
    stdout_lines: int = Field(description="stdout lines compared (numbers within tolerance)")
    different_lines: int
    output_files: int
    first_difference: str | None = None
    open_markers: int = Field(description="markers the migration of the copy left for a person")
    marker_rules: list[str]
    devices: str
    error: str | None = None
    hint: str
    notes: list[str] | None = Field(None, description="full only")


class RuleDoc(BaseModel):
    id: str
    name: str
    severity: str
    summary: str
    why: str
    before: str
    after: str
    fix: Literal["safe", "unsafe", "manual"]
    suggestion: str


class Limits(BaseModel):
    max_source_bytes: int
    max_files: int
    max_verify_iterations: int
    max_verify_seconds: int


class ServerInfo(BaseModel):
    version: str
    dali_table_version: str
    root: str
    originals: str = Field(description="where writes keep the originals, relative to the root")
    tools: list[str]
    limits: Limits


# -- the workspace ------------------------------------------------------------------------------

class Workspace:
    """Paths under one root; everything else is refused."""

    def __init__(self, root: str | Path):
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise ValueError(f"workspace root is not a folder: {root}")

    def inside(self, path: Path) -> bool:
        return path == self.root or self.root in path.parents

    def resolve(self, path: str) -> Path:
        if "\x00" in path:
            raise ToolFailure(f"path {path!r} contains a NUL byte; pass a plain path relative to the workspace root")
        candidate = (self.root / path).resolve()  # follows symlinks: a link out ends up outside
        if not self.inside(candidate):
            raise ToolFailure(f"path {path!r} is outside the workspace root {self.root} (or a link out of it); "
                              f"pass a path below the root, relative to it (server_info shows the root)")
        if not candidate.exists():
            raise ToolFailure(f"no such file or folder in the workspace: {path!r} (paths are relative to "
                              f"{self.root}); migrate_paths with paths=['.'] lists the DALI files")
        return candidate

    def relative(self, path: Path) -> str:
        return path.resolve().relative_to(self.root).as_posix()

    def source_files(self, paths: list[str]) -> list[Path]:
        resolved = [self.resolve(p) for p in paths]
        files = []
        for f in iter_source_files(resolved):
            real = f.resolve()
            if not self.inside(real):
                raise ToolFailure(f"{self.relative_lexically(f)} is a symbolic link that leaves the workspace root; "
                                  f"name the files or folders to use without it")
            files.append(real)
            if len(files) > MAX_FILES:
                raise ToolFailure(f"more than {MAX_FILES} source files under {paths}; pass narrower paths "
                                  f"(sub-folders or files)")
        return files

    def relative_lexically(self, path: Path) -> str:
        try:
            return Path(os.path.abspath(path)).relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def in_state_dir(self, path: Path) -> bool:
        return (self.root / STATE_DIR) in path.parents

    def refuse_state_writes(self, paths: list[str]) -> None:
        """The kept originals are never rewritten (by a migration or lint fixes)."""
        for path in paths:
            target = self.resolve(path)
            if target == self.root / STATE_DIR or self.in_state_dir(target):
                raise ToolFailure(f"{path!r} is in {STATE_DIR}/, where writes keep the originals; write the "
                                  f"workspace files themselves (their paths without {ORIGINALS_DIR}/)")

    def kept_original(self, path: Path) -> Path | None:
        """The original a write kept of a workspace file, when the file still differs from it (a file put
        back as it was has nothing to compare with), and the kept copy is a file inside the root."""
        if self.in_state_dir(path):
            return None
        kept = kept_original(self.root, self.relative(path))
        if not (kept.is_file() and self.inside(kept.resolve())):
            return None
        return kept if kept.read_bytes() != path.read_bytes() else None


# -- shared pieces --------------------------------------------------------------------------------

def _finding(f) -> FindingOut:
    return FindingOut(rule=f.rule, severity=f.severity, line=f.line, column=f.column, cell=f.cell, fixed=f.fixed,
                      file_level=f.file_level or None, message=f.message)


def _findings(findings, detail: str) -> tuple[list[FindingOut], dict[str, int] | None]:
    """(findings to list, rewrites per rule): at summary only what a person must act on is listed."""
    if detail == "full":
        return [_finding(f) for f in findings], None
    rewrites: dict[str, int] = {}
    for f in findings:
        if f.fixed:
            rewrites[f.rule] = rewrites.get(f.rule, 0) + 1
    return [_finding(f) for f in findings if not f.fixed], dict(sorted(rewrites.items())) or None


def _where(f) -> str:
    return f"cell[{f.cell}] line {f.line}" if f.cell else f"line {f.line}"


def _manual_lines(path: str, findings, limit: int = 5) -> list[str]:
    manual = [f for f in findings if not f.fixed]
    lines = [f"    {path} {_where(f)}: {f.rule} {f.message}" for f in manual[:limit]]
    if len(manual) > limit:
        lines.append(f"    ... {len(manual) - limit} more (see structured content)")
    return lines


def _check_size(source: str) -> None:
    if len(source.encode("utf-8", "surrogatepass")) > MAX_SOURCE_BYTES:
        raise ToolFailure(f"source is larger than {MAX_SOURCE_BYTES} bytes; pass one module or function at a time, "
                          f"or put the file in the workspace and use the *_paths tools on it")


def _refuse_error(result, filename: str) -> None:
    """A snippet that does not parse cannot be migrated or linted: say where, and what to do."""
    if result.error:
        finding = result.findings[0] if result.findings else None
        where = _where(finding) if finding else "line 1"
        raise ToolFailure(f"{filename} {where}: {result.error}; fix the source (it must be valid Python 3 that "
                          f"libcst can parse) and call again")


def _is_notebook(name: str) -> bool:
    return name.endswith(".ipynb")


TOO_BIG = f"larger than {MAX_SOURCE_BYTES} bytes; skipped (split the file, or migrate it with the CLI)"


def _too_big(path: Path) -> bool:
    return path.stat().st_size > MAX_SOURCE_BYTES


def _too_big_result(rel: str) -> MigrationResult:
    result = MigrationResult(path=rel, original="", migrated="")
    result.error = TOO_BIG
    return result


def _project_for(files: list[Path], read_from: dict[Path, Path] | None = None):
    """The CLI's project pre-scan: pipelines one file defines and another uses migrate on both sides.
    ``read_from``: files whose text is read elsewhere (a kept original) but scanned under their own path,
    so that module names come from where the file lives."""
    from .files import SourceError, read_source
    from .project import Project, scan_source

    project = Project()
    for path in files:
        if not _too_big(path) and not _is_notebook(path.name):
            try:
                scan_source(read_source((read_from or {}).get(path, path)), str(path), project)
            except (SourceError, OSError):
                continue  # the migration reports it
    return project


def _pipelines_by_file(workspace: Workspace, project) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for p in project.pipelines.values():
        found.setdefault(workspace.relative(Path(p.path)), []).append(_signature(p))
    return found


def _signature(p) -> str:
    return f"{p.name}({', '.join(p.params)})" if p.style != "object" else p.name


def _notebook_pipelines(text: str, rel: str) -> list[str] | None:
    """The pipelines a notebook's code cells define (the pre-scan, over its cells joined)."""
    from .project import Project, scan_source

    try:
        code = notebook_cells(text, rel)
    except ToolFailure:
        return None
    project = Project()
    scan_source(_Cells(code, sorted(code)).text if code else "", rel, project)
    return [_signature(p) for p in project.pipelines.values()] or None


# -- migrate -----------------------------------------------------------------------------------

def migrate_code(source: str, filename: str = "snippet.py", detail: str = "summary") -> tuple[MigrateCodeResult, str]:
    from .notebooks import migrate_notebook

    _check_size(source)
    result = migrate_notebook(source, filename) if _is_notebook(filename) else migrate_source(source, filename)
    _refuse_error(result, filename)
    findings, rewrites = _findings(result.findings, detail)
    out = MigrateCodeResult(status=result.status, changed=result.changed, findings=findings, rewrites=rewrites,
                            migrated=result.migrated if result.changed else None,
                            diff=result.diff() if detail == "full" and result.changed else None)
    manual = [f for f in result.findings if not f.fixed]
    text = f"{filename}: {result.status}" + (f", {len(manual)} spot(s) for a person" if manual else "")
    text += "; the migrated code is in `migrated`" if result.changed else ""
    return out, "\n".join([text, *_manual_lines(filename, result.findings)])


def migrate_workspace_paths(workspace: Workspace, paths: list[str], write: bool = False,
                            detail: str = "summary") -> tuple[MigratePathsResult, str]:
    from .api import RunResult

    if write:
        workspace.refuse_state_writes(paths)
    files = workspace.source_files(paths)
    project = _project_for(files)
    pipelines = _pipelines_by_file(workspace, project)
    run = RunResult()
    listed: list[MigratedFile] = []
    from .api import share_helpers

    results = [_too_big_result(workspace.relative(path)) if _too_big(path)
               else migrate_file(path, display=workspace.relative(path), project=project or None) for path in files]
    # The project's helper module (EpochIterator, ReaderStream, Prefetch), as `dali-migrate migrate` makes it: created, if
    # two or more modules need it, beside them.
    made = share_helpers(results, [str(workspace.root)], project or None, base=workspace.root)
    for path, result in [*zip(files, results), *((workspace.root / r.path, r) for r in made)]:
        rel = workspace.relative(path)
        written, kept = False, None
        if write and result.changed and result.created and path.exists():
            result.error = f"cannot write the helper module {rel}: a file appeared there during the run"
        elif write and result.changed:
            try:
                if not result.created:  # a created file has no original to keep
                    kept = workspace.relative(keep_original(workspace.root, rel, result.original))
                atomic_write(path, result.migrated)
                written = True
                run.written.append(rel)
            except OSError as e:
                result.error = f"cannot write: {e.strerror or e}"
        run.files.append(result)
        if result.uses_dali or result.error:
            findings, rewrites = _findings(result.findings, detail)
            listed.append(MigratedFile(
                path=rel, status=result.status, changed=result.changed, written=written if write else None,
                original_kept=kept, error=result.error, rewrites=rewrites,
                pipelines=_notebook_pipelines(result.original, rel) if _is_notebook(rel) else pipelines.get(rel),
                findings=findings, diff=result.diff() if detail == "full" and result.changed else None))
    summary = run.summary()
    counts = PathCounts(files=summary["files"], dali=len(listed), changed=summary["changed"],
                        written=summary["written"], manual=summary["manual_findings"], errors=summary["errors"])
    out = MigratePathsResult(write=write, exit_code=run.exit_code(wrote=write), counts=counts, files=listed,
                             next_step=_next_after_migrate(listed, write))
    return out, _migrate_text(out, run)


def _next_after_migrate(files: list[MigratedFile], write: bool) -> str:
    if any(f.error for f in files):
        return "Files with an error were left untouched: fix what `error` says (or leave them out) and run again."
    changed = [f for f in files if f.changed]
    if not write and changed:
        pipelines = [f"{f.path} {p.split('(')[0]}" for f in changed for p in f.pipelines or []]
        target = ("verify each pipeline (original=<file> pipeline=<name>, with the args/kwargs it takes): "
                  + (", ".join(pipelines[:5]) + (", ..." if len(pipelines) > 5 else "") if pipelines else
                     "name one the changed files define"))
        return f"{target}; then migrate_paths write=true; then lint_paths and review."
    if write and any(f.written for f in files):
        return ("lint_paths on the written files; review; verify again (it now compares the kept original with "
                "the written file). Markers (`# dali-migrate: DMnnn`) stay open until a person resolves them.")
    if any(f.findings and not all(x.fixed for x in f.findings) for f in files):
        return "Nothing left to rewrite; the markers need a person (explain_rule DMnnn says why)."
    return "Nothing to migrate here."


def _migrate_text(out: MigratePathsResult, run) -> str:
    c = out.counts
    head = "written" if out.write else "dry run (nothing written)"
    lines = [f"{head}: {c.files} files, {c.dali} with DALI; {c.changed} changed"
             + (f", {c.written} written (originals kept in {ORIGINALS_DIR}/)" if out.write else "")
             + (f", {c.manual} spot(s) for a person" if c.manual else "")
             + (f", {c.errors} error(s)" if c.errors else "") + f"; exit {out.exit_code}"]
    by_path = {r.path: r for r in run.files}
    for f in out.files:
        lines.append(f"  {f.path}: {f.status}" + (f" - {f.error}" if f.error else "")
                     + (f"; pipelines {', '.join(f.pipelines)}" if f.pipelines else ""))
        lines += _manual_lines(f.path, by_path[f.path].findings)
    lines.append(f"Next: {out.next_step}")
    return "\n".join(lines)


# -- lint --------------------------------------------------------------------------------------

def lint_code(source: str, filename: str = "snippet.py", fix: bool = False,
              unsafe_fixes: bool = False) -> tuple[LintCodeResult, str]:
    from .lint import lint_source

    _check_size(source)
    result = lint_source(source, filename, fix=fix, unsafe_fixes=unsafe_fixes)
    _refuse_error(result, filename)
    out = LintCodeResult(findings=[_finding(f) for f in result.findings], fixed=[_finding(f) for f in result.fixed],
                         fixed_source=result.fixed_source if result.changed else None)
    text = f"{filename}: {len(result.findings)} finding(s)" + (f", {len(result.fixed)} fixed (see fixed_source)"
                                                               if result.fixed else "")
    return out, "\n".join([text, *(f"  {_where(f)}: {f.rule} {f.message}" for f in result.findings[:10])])


def lint_workspace_paths(workspace: Workspace, paths: list[str], fix: bool = False, unsafe_fixes: bool = False,
                         detail: str = "summary") -> tuple[LintPathsResult, str]:
    """Through the lint API (``lint.lint_paths``), which reads notebooks as their joined code cells."""
    from .lint import LintResult, LintRun, lint_paths

    if fix:
        workspace.refuse_state_writes(paths)
    files = workspace.source_files(paths)
    small = [f for f in files if not _too_big(f)]
    by_path: dict[Path, LintResult] = {}
    done = lint_paths(small, fix=fix, unsafe_fixes=unsafe_fixes)
    written = {Path(name).resolve() for name in done.written}
    for result in done.files:
        by_path[Path(result.path).resolve()] = result
    run = LintRun()
    listed = []
    for path in files:
        rel = workspace.relative(path)
        result = by_path.get(path) or LintResult(rel, "", error=TOO_BIG)
        result.path = rel
        for f in [*result.findings, *result.fixed]:
            f.path = rel
        run.files.append(result)
        if result.findings or result.fixed or result.error:
            listed.append(LintedFile(path=rel, error=result.error, written=(path in written) if fix else None,
                                     findings=[_finding(f) for f in result.findings],
                                     fixed=[_finding(f) for f in result.fixed],
                                     diff=_fix_diff(result, rel) if detail == "full" and result.changed else None))
    counts = LintCounts(files=len(files), findings=len(run.findings), errors=len(run.errors),
                        fixed=sum(len(r.fixed) for r in run.files), written=len(written))
    if run.errors:
        next_step = "Files with an error were not linted: fix what `error` says and run again."
    elif run.findings:
        next_step = ("Fix the findings (explain_rule DMnnn says how; fix=true applies the safe fixes), lint again, "
                     "then review.")
    else:
        next_step = "Clean. review shows the migration hunk by hunk; verify compares original and migrated."
    out = LintPathsResult(fix=fix, exit_code=run.exit_code(), counts=counts, files=listed, next_step=next_step)
    lines = [f"lint: {counts.files} files, {counts.findings} finding(s)"
             + (f", {counts.fixed} fixed, {counts.written} written" if fix else "")
             + (f", {counts.errors} error(s)" if counts.errors else "") + f"; exit {out.exit_code}"]
    for f in listed:
        lines.append(f"  {f.path}" + (f": {f.error}" if f.error else ""))
        lines += [f"    {_where(x)}: {x.rule} {x.message}" for x in f.findings[:5]]
    lines.append(f"Next: {next_step}")
    return out, "\n".join(lines)


def _fix_diff(result, rel: str) -> str:
    import difflib

    return "".join(difflib.unified_diff(result.source.splitlines(keepends=True),
                                        result.fixed_source.splitlines(keepends=True),
                                        fromfile=f"a/{rel}", tofile=f"b/{rel}"))


# -- review ------------------------------------------------------------------------------------

def review_workspace_paths(workspace: Workspace, paths: list[str], format: str = "markdown",
                           detail: str = "summary") -> tuple[ReviewResult, str]:
    """Review what the migration of these files does. A file written by migrate_paths is reviewed from
    its kept original (the migration as it was written)."""
    from .review import build_review, to_html, to_markdown

    files = workspace.source_files(paths)
    kept_originals = {path: workspace.kept_original(path) for path in files}
    project = _project_for(files, {path: kept for path, kept in kept_originals.items() if kept})
    results, sources = [], {}
    for path in files:
        rel = workspace.relative(path)
        kept = kept_originals[path]
        if _too_big(path):
            results.append(_too_big_result(rel))
            continue
        result = migrate_file(kept or path, display=rel, project=project or None)
        if kept is not None:
            note = None
            if path.read_text(encoding="utf-8", errors="replace") != result.migrated:
                note = ("the file changed after the write (lint fixes or edits); this review shows the migration "
                        "as written")
            sources[rel] = (workspace.relative(kept), note)
        results.append(result)
    review = build_review(results, scanned=len(files))
    listed = []
    for f in review.files:
        kept_rel, note = sources.get(f.path, (None, None))
        markers = [ReviewMarker(rule=m.finding.rule, line=m.finding.line, cell=m.finding.cell,
                                migrated_line=m.migrated_line, message=m.finding.message, suggestion=m.suggestion)
                   for m in f.markers]
        listed.append(ReviewedFile(path=f.path, status=f.status, error=f.error, reviewed_from=kept_rel, note=note,
                                   hunks=len(f.hunks), rules=sorted({r for h in f.hunks for r in h.rule_ids}),
                                   markers=markers))
    document = None
    if detail == "full":
        document = to_html(review) if format == "html" else to_markdown(review)
    out = ReviewResult(files=listed, rule_counts=review.rule_counts(), format=format, document=document)
    lines = [f"review: {len(listed)} file(s) with DALI, {sum(f.hunks for f in listed)} hunk(s), "
             f"{sum(len(f.markers) for f in listed)} marker(s) for a person"
             + ("" if document else "; detail=full gives the document")]
    for f in listed:
        lines.append(f"  {f.path}: {f.status}, rules {', '.join(f.rules) or '-'}"
                     + (f" (from {f.reviewed_from})" if f.reviewed_from else ""))
        lines += [f"    {_where(m)}: {m.rule} {m.message} -> {m.suggestion}" for m in f.markers[:5]]
    return out, "\n".join(lines)


# -- verify ------------------------------------------------------------------------------------

def notebook_cells(text: str, path: str) -> dict[int, str]:
    """``{cell number: Python code}`` of a notebook's code cells, as they run without Jupyter (the way
    ``verify_program`` runs notebooks, ``harness.run_notebook``): magic and shell lines become ``pass``,
    ``%time STMT`` runs STMT, and cells under a cell magic other than %%time/%%capture are left out.
    Cell numbers count every cell, as findings do."""
    from .harness.run_notebook import RUN_CELL_MAGICS, cell_magic, code_cells, python_of_cell

    try:
        cells = code_cells(text)
    except ValueError as e:
        raise ToolFailure(f"{path} is not a readable notebook ({e}); re-save it in Jupyter") from None
    return {number: python_of_cell(source) for number, source in cells
            if cell_magic(source) in (None, *RUN_CELL_MAGICS)}


def _top_level_names(code: str) -> set[str]:
    """The names a cell's code binds at the top level (def, class, assignment)."""
    import ast

    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        for target in node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []:
            if isinstance(target, ast.Name):
                names.add(target.id)
    return names


class _Cells:
    """The chosen cells of a notebook joined into one module, and the way back from its lines to cells."""

    def __init__(self, code: dict[int, str], numbers: list[int]):
        self.starts: list[tuple[int, int]] = []  # (first module line, cell number)
        chunks, line = [], 1
        for number in numbers:
            text = code[number] if code[number].endswith("\n") else code[number] + "\n"
            self.starts.append((line, number))
            chunks.append(text)
            line += text.count("\n")
        self.text = "".join(chunks)

    def where(self, line: int) -> str:
        start, number = max((s for s in self.starts if s[0] <= line), default=self.starts[0])
        return f"cell[{number}] line {line - start + 1}"


def _choose_cells(code: dict[int, str], pipeline: str, cells: list[int] | None, path: str) -> list[int]:
    if cells:
        missing = [c for c in cells if c not in code]
        if missing:
            raise ToolFailure(f"{path}: cell(s) {missing} are not Python code cells; the code cells are "
                              f"{sorted(code)}")
        return sorted(set(cells))
    defining = [n for n, text in code.items() if pipeline in _top_level_names(text)]
    if not defining:
        from .harness.loading import still_pipeline_mode

        candidates = [f"cell[{n}] {name}" for n, text in code.items() for name in sorted(_top_level_names(text))
                      if still_pipeline_mode(text, name)]
        hint = f"; pipeline-mode definitions: {', '.join(candidates)}" if candidates else ""
        raise ToolFailure(f"{path}: no code cell defines {pipeline!r} at the top level{hint}; pass the name a cell "
                          f"defines (or `cells` to run)")
    return [n for n in code if n <= defining[-1]]


def _cell_lines(message: str, label: str, sides: dict[str, _Cells]) -> str:
    """``(line 12)`` and ``label:12:`` in a harness message -> the cell and the line within it, on the
    side the message is about (a migration can change a cell's length)."""
    cells = sides["migrated" if re.search(r"\bmigrated (side|file)\b", message) else "original"]
    message = re.sub(r"\bline (\d+)", lambda m: cells.where(int(m.group(1))), message)
    return re.sub(re.escape(label) + r":(\d+):", lambda m: f"{label} {cells.where(int(m.group(1)))}:", message)


def verify_in_workspace(workspace: Workspace, original: str, pipeline: str, migrated: str | None = None,
                        args: list | None = None, kwargs: dict | None = None, iterations: int = 5,
                        timeout_s: int = 120, cells: list[int] | None = None,
                        detail: str = "summary") -> tuple[VerifyResult, str]:
    """Run the original pipeline and its migration side by side in a child process (user code never
    runs in the server), stopped after ``timeout_s``. Which texts are compared:

    * ``migrated`` given: ``original`` against it;
    * else, when a write kept an original of ``original``: that kept text against the file as written;
    * else: ``original`` against its migration in memory.
    """
    original_path = workspace.resolve(original)
    if original_path.is_dir():
        raise ToolFailure(f"{original!r} is a folder; pass the file that defines {pipeline!r}")
    notebook = _is_notebook(original_path.name)
    original_rel = workspace.relative(original_path)
    kept = workspace.kept_original(original_path) if migrated is None else None
    current = _read_text(original_path, original_rel)
    if migrated is not None:
        migrated_path = workspace.resolve(migrated)
        migrated_rel = workspace.relative(migrated_path)
        if _is_notebook(migrated_path.name) != notebook:
            raise ToolFailure("original and migrated must both be notebooks or both be .py files")
        original_text, migrated_text = current, _read_text(migrated_path, migrated_rel)
        labels = (original_rel, migrated_rel)
    elif kept is not None:
        original_text, migrated_text = _read_text(kept, workspace.relative(kept)), current
        migrated_path = original_path
        labels = (workspace.relative(kept), f"{original_rel} (as written)")
    else:
        migrated_path = original_path
        original_text, migrated_text = current, None
        labels = (original_rel, f"{original_rel} (migrated in memory)")
        _refuse_already_migrated(original_text, original_rel, pipeline, notebook)
    cell_map = None
    if notebook:
        original_code = notebook_cells(original_text, labels[0])
        if migrated_text is None:
            result = migrate_file(original_path, display=original_rel)
            if result.error:
                raise ToolFailure(f"{original_rel}: the migration failed: {result.error}; fix that first "
                                  f"(migrate_paths shows it)")
            migrated_text = result.migrated
        migrated_code = notebook_cells(migrated_text, labels[1])
        chosen = _choose_cells(original_code, pipeline, cells, original_rel)
        gone = [n for n in chosen if n not in migrated_code]
        if gone:
            raise ToolFailure(f"cell(s) {gone} are not code cells on the migrated side; pass `cells` that both have")
        cell_map = {"original": _Cells(original_code, chosen), "migrated": _Cells(migrated_code, chosen)}
        original_text, migrated_text = cell_map["original"].text, cell_map["migrated"].text
    elif cells:
        raise ToolFailure("`cells` is for notebooks; leave it out for a .py file")
    request = {"original_text": original_text, "original_path": str(original_path),
               "migrated_text": migrated_text, "migrated_path": str(migrated_path), "pipeline": pipeline,
               "args": list(args or []), "kwargs": dict(kwargs or {}), "iterations": iterations}
    answer = _run_child(request, timeout_s, workspace.root)

    def clean(message: str) -> str:
        message = message.replace(f"{workspace.root}{os.sep}", "")
        return _cell_lines(message, original_rel, cell_map) if cell_map else message

    base = dict(iterations=iterations, original=labels[0], migrated=labels[1],
                cells=chosen if cell_map else None, outputs=[], devices="not run")
    if answer is None:
        out = VerifyResult(verdict="failed", equal=False, error=f"did not finish within {timeout_s} s; it was stopped",
                           hint=f"raise timeout_s (at most {MAX_VERIFY_SECONDS}), lower iterations, or check the "
                                f"pipeline for a hang (a reader on a huge folder, an endless loop at import)", **base)
        raise ToolFailure(f"verify: {out.error}; {out.hint}", out)
    if "refused" in answer:
        error = clean(answer["refused"])
        out = VerifyResult(verdict="incomplete", equal=False, error=error, hint=_refusal_hint(error, pipeline),
                           **base)
        raise ToolFailure(f"verify: {error}; {out.hint}", out)
    out = _verify_result(answer, base, clean, detail)
    text = _verify_text(out)
    if out.verdict in ("failed", "incomplete"):
        raise ToolFailure(text, out)
    return out, text


def _read_text(path: Path, rel: str) -> str:
    if _too_big(path):
        raise ToolFailure(f"{rel} is larger than {MAX_SOURCE_BYTES} bytes; verify it with the CLI "
                          f"(dali-migrate verify)")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ToolFailure(f"{rel} is not UTF-8 text") from None


def _refuse_already_migrated(text: str, rel: str, pipeline: str, notebook: bool) -> None:
    """A file with nothing left to migrate and no kept original: the original side is gone."""
    if notebook:
        return  # the cells are checked when they run; a notebook's verdict says "not migrated"
    from .harness.loading import still_pipeline_mode

    result = migrate_source(text, rel)
    if result.error or result.changed or not result.uses_dali or still_pipeline_mode(text, pipeline):
        return
    if "experimental.dynamic" in text:
        raise ToolFailure(
            f"{rel} is already dynamic-mode code and no original is kept under {ORIGINALS_DIR}/{rel}; pass "
            f"original=<the pipeline-mode file> and migrated={rel} (writes through migrate_paths keep the original "
            f"for you)", VerifyResult(verdict="incomplete", equal=False, iterations=0, original=rel, migrated=rel,
                                      outputs=[], devices="not run", error=f"{rel} is already migrated",
                                      hint=f"pass original=<the pipeline-mode file> and migrated={rel}"))


def _refusal_hint(error: str, pipeline: str) -> str:
    if "no pipeline named" in error or "no name" in error:
        return "pass the name of a pipeline the file defines at the top level (migrate_paths lists them)"
    if "not a DALI Pipeline" in error:
        return (f"{pipeline} does not build a pipeline-mode Pipeline here: if this file is already migrated, pass "
                f"original=<the pipeline-mode file> and migrated=<this file>; else name the pipeline itself")
    if "args" in error or "argument" in error:
        return "pass args (a list) and kwargs (an object) that the pipeline takes"
    return "fix what the error says and call again"


def _run_child(request: dict, timeout_s: int, cwd: Path) -> dict | None:
    """The harness in a child process, in its own session: on timeout, and after it ends, whatever it
    left running in that session is killed. None: the time ran out."""
    proc = subprocess.Popen([sys.executable, "-c", "from dali_migrate.mcp_server import verify_child; verify_child()"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=cwd, start_new_session=True)
    try:
        out, err = proc.communicate(json.dumps(request), timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill_session(proc)
        proc.communicate()
        return None
    finally:
        _kill_session(proc)
    try:
        return json.loads(out)
    except json.JSONDecodeError:
        tail = " | ".join((err or out).strip().splitlines()[-3:]) or f"exit code {proc.returncode}"
        return {"refused": f"the verify process ended without a report: {tail}"}


def _kill_session(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (AttributeError, ProcessLookupError, PermissionError):  # no process groups here, or already gone
        proc.kill()


def verify_child() -> None:
    """The child's side: a request (JSON) on stdin, the report (JSON) on stdout. Whatever user code
    prints goes to stderr, so it cannot garble the report."""
    from .harness import HarnessError, verify_sources

    request = json.load(sys.stdin)
    report_stream = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        report = verify_sources(request["original_text"], request["original_path"], request["pipeline"],
                                request["migrated_text"], request["migrated_path"], args=request["args"],
                                kwargs=request["kwargs"], iterations=request["iterations"])
        answer = report.to_dict()
    except HarnessError as e:
        answer = {"refused": str(e)}
    json.dump(answer, report_stream)
    report_stream.flush()


def _verify_result(report: dict, base: dict, clean, detail: str) -> VerifyResult:
    full = detail == "full"
    outputs = [VerifyOutput(index=o["index"], name=o["name"], status=o["status"], reason=clean(o["reason"]) or None,
                            random_handling=o.get("random_handling") or None,
                            samples_compared=o.get("samples_compared", 0),
                            samples_different=o.get("samples_different", 0), max_abs_error=o.get("max_abs_error"),
                            first_mismatches=[_mismatch_text(m) for m in o.get("mismatches", [])[:5]] if full else None)
               for o in report.get("outputs", [])]
    devices = report.get("devices", {})
    mappings = devices.get("mappings", [])
    where = (f"no GPU: {len(mappings)} gpu/mixed request(s) mapped to cpu on both sides" if devices.get("mapped_to_cpu")
             else f"as written ({devices.get('cuda_devices', 0)} CUDA device(s))")
    error = clean(report["error"]) if report.get("error") else None
    verdict = report["verdict"]
    hints = {
        "equal": "The migration computes what the original does: migrate_paths write=true (if not done yet), "
                 "then lint_paths and review.",
        "partial": "Equal where compared; outputs that depend on random ops could not be lined up (see reason).",
        "different": "Read first_mismatches (detail=full) and compare the two files' code for that output.",
        "failed": "One side crashed: the error names the side, stage and line. Missing arguments? Pass args/kwargs "
                  "(a @pipeline_def without batch_size needs kwargs {\"batch_size\": N}).",
        "incomplete": "The migrated side is not runnable dynamic-mode code yet: finish the spots marked "
                      "`# dali-migrate:` or pass migrated=<the migrated file>.",
    }
    return VerifyResult(verdict=verdict, equal=report["equal"], iterations=report["iterations"], outputs=outputs,
                        devices=where, error=error, hint=hints[verdict],
                        notes=[clean(n) for n in report.get("notes", [])] or None if full else None,
                        device_mappings=[_mapping_text(m) for m in mappings] or None if full else None,
                        **{k: v for k, v in base.items() if k not in ("iterations", "outputs", "devices")})


def _mapping_text(m: dict) -> str:
    return f"{m.get('side')} line {m.get('line')}: {m.get('before')} -> {m.get('after')}"


def _verify_text(out: VerifyResult) -> str:
    outputs = "; ".join(f"{o.name} {o.status}" + (f" ({o.samples_compared} samples)" if o.status == "equal" else "")
                        for o in out.outputs)
    lines = [f"verify: {out.verdict.upper()} over {out.iterations} iteration(s): {outputs or 'no outputs compared'}",
             f"  {out.original} vs {out.migrated}" + (f", cells {out.cells}" if out.cells else "") + f"; {out.devices}"]
    if out.error:
        lines.append(f"  error: {out.error}")
    lines.append(f"Next: {out.hint}")
    return "\n".join(lines)


def _mismatch_text(m: dict) -> str:
    where = f"iteration {m.get('iteration')}, output {m.get('output')} ({m.get('name')})"
    if m.get("sample") is not None:
        where += f", sample {m['sample']}"
    text = f"{where}: {m.get('what')} differ"
    if m.get("original") is not None or m.get("migrated") is not None:
        text += f": original {m.get('original')}, migrated {m.get('migrated')}"
    return text + (f"; {m['detail']}" if m.get("detail") else "")


def verify_workspace_program(workspace: Workspace, timeout_s: int = 300,
                             detail: str = "summary") -> tuple[ProgramResult, str]:
    """The whole program (``harness.programs.verify_configured_program``): the command configured in
    ``<root>/pyproject.toml`` runs in a copy of the workspace and in a migrated copy. Never a command from
    the call: a client must not gain a shell through the server. The copies go in ``.dali-migrate/runs/``
    (inside the root) and are removed afterwards."""
    import shutil
    import tempfile

    from .harness.programs import verify_configured_program

    written = [workspace.relative(path) for path in _written_files(workspace)]
    if written:
        raise ToolFailure(f"{len(written)} file(s) were already written by migrate_paths ({', '.join(written[:3])}"
                          f"{', ...' if len(written) > 3 else ''}): verify_program copies the workspace as it is, so "
                          f"both copies would be migrated code. Run it before the write; after it, verify compares "
                          f"each pipeline with its kept original")
    scratch_root = state_dir(workspace.root) / "runs"
    scratch_root.mkdir(exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="run-", dir=scratch_root))
    try:
        report = verify_configured_program(workspace.root, scratch=scratch, timeout_s=timeout_s)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    full = detail == "full"

    def side(run, failed: bool) -> ProgramRunOut | None:
        if run.exit_code is None and not run.timed_out:
            return None  # did not run
        return ProgramRunOut(exit_code=run.exit_code, timed_out=run.timed_out, seconds=round(run.seconds, 2),
                             stdout_tail=run.stdout[-2000:] if full else None,
                             stderr_tail=run.stderr[-2000:] if full or failed else None)

    devices = report.devices
    hints = {
        "equal": "The program's exit status, stdout and outputs agree. Next: migrate_paths write=true, lint_paths, "
                 "review.",
        "different": "first_difference names the first line or file that differs; compare the code that produces it.",
        "original-failed": "The original program failed in its copy (stderr_tail says why): fix verify-command in "
                           "pyproject.toml [tool.dali-migrate] so that it runs as it is, then call again.",
        "migrated-failed": "The migrated program crashed (stderr_tail): look at the markers and the line named, "
                           "fix the migration, verify again.",
        "timeout": f"The migrated copy ran past {timeout_s} s: raise timeout_s (at most {MAX_VERIFY_SECONDS}) or make "
                   f"verify-command do less (fewer steps).",
        "error": "A person must configure the program: verify-command (and verify-outputs) in pyproject.toml "
                 "[tool.dali-migrate] at the workspace root; the server never runs a command sent by a client.",
    }
    clean = (lambda text: text.replace(f"{workspace.root}{os.sep}", "").replace(str(scratch), "<copy>"))
    out = ProgramResult(
        verdict=report.verdict, outcome=report.outcome, command=report.command, outputs=report.outputs,
        original=side(report.original, report.verdict == "original-failed"),
        migrated=side(report.migrated, report.verdict in ("migrated-failed", "timeout")),
        stdout_lines=report.stdout_lines, different_lines=report.different_lines, output_files=report.output_files,
        first_difference=clean(report.differences[0].format()) if report.differences else None,
        open_markers=report.open_markers, marker_rules=report.marker_rules,
        devices=(f"no GPU: {len(report.device_mappings)} gpu/mixed request(s) mapped to cpu in both copies"
                 if devices.get("mapped_to_cpu") else "as written"),
        error=clean(report.error) if report.error else None, hint=hints[report.verdict],
        notes=[clean(n) for n in report.notes] or None if full else None)
    text = "\n".join(filter(None, [
        f"verify_program: {out.outcome.upper()} running `{out.command or '(none configured)'}` in a copy and a "
        f"migrated copy of the workspace; {out.devices}",
        f"  stdout: {out.stdout_lines} line(s) compared, {out.different_lines} different; output files: "
        f"{out.output_files}" if report.verdict in ("equal", "different") else None,
        f"  first difference: {out.first_difference}" if out.first_difference else None,
        f"  error: {out.error}" if out.error else None,
        f"Next: {out.hint}"]))
    if report.verdict not in ("equal", "different"):
        raise ToolFailure(text, out)
    return out, text


def _written_files(workspace: Workspace) -> list[Path]:
    """Workspace files written by migrate_paths: those that differ from their kept original."""
    originals = workspace.root / ORIGINALS_DIR
    kept = sorted(originals.rglob("*")) if originals.is_dir() else []
    files = [workspace.root / k.relative_to(originals) for k in kept if k.is_file()]
    return [path for path in files if path.is_file() and workspace.kept_original(path)]


# -- rules -------------------------------------------------------------------------------------

def explain(rule_id: str) -> tuple[RuleDoc, str]:
    from .findings import all_rules

    rules = all_rules()
    rule = rules.get(rule_id.strip().upper())
    if rule is None:
        raise ToolFailure(f"unknown rule {rule_id!r}; pass one of the IDs findings carry: {', '.join(rules)}")
    doc = RuleDoc(id=rule.id, name=rule.name, severity=rule.severity, summary=rule.summary, why=rule.why,
                  before=rule.before, after=rule.after, fix=rule.fix, suggestion=rule.suggestion)
    return doc, f"{rule.id} {rule.name} ({rule.severity}, fix {rule.fix}): {rule.summary}"


# -- the server: parameters, tools, errors ----------------------------------------------------------

DETAIL_DESCRIPTION = ("summary (default): statuses, counts and the findings a person must act on (the rewrites "
                      "the tool made are counted per rule); full: also every finding and the diffs. For one file's "
                      "diff, call with that one path and detail=full.")
Detail = Annotated[Literal["summary", "full"], Field(description=DETAIL_DESCRIPTION)]
Source = Annotated[str, Field(max_length=MAX_SOURCE_BYTES, description=(
    f"the code itself (not a path), at most {MAX_SOURCE_BYTES} bytes; a notebook's JSON works too when "
    f"filename ends in .ipynb"))]
Filename = Annotated[str, Field(min_length=1, max_length=255, pattern=r"\.(py|ipynb)$", description=(
    "a name for findings and diff headers; nothing is read or written. Ends in .py (or .ipynb for a notebook's "
    "JSON)"))]
PathItem = Annotated[str, Field(min_length=1, max_length=4096)]
Paths = Annotated[list[PathItem], Field(min_length=1, max_length=MAX_PATHS, description=(
    "files or folders relative to the workspace root ('.' for all of it). Folders are searched for .py and "
    ".ipynb files; hidden folders (.git, .dali-migrate, ...) and build/venv folders are skipped"))]
Write = Annotated[bool, Field(description=(
    "false (default): a dry run, nothing is written. true: rewrite the changed files in place (atomically); the "
    f"text of each file before the write is kept under {ORIGINALS_DIR}/<path>, which verify and review use. "
    "Dry-run and verify first"))]
Fix = Annotated[bool, Field(description="true: apply the safe fixes (rewrites files in place, atomically); "
                                        "false (default): only report")]
UnsafeFixes = Annotated[bool, Field(description="with fix=true, also apply fixes that can change behaviour "
                                                "(each rule's fix safety: explain_rule)")]
CodeFix = Annotated[bool, Field(description="true: return fixed_source with the safe fixes applied")]
ReviewFormat = Annotated[Literal["markdown", "html"], Field(description="the document's format (detail=full)")]
ReviewDetail = Annotated[Literal["summary", "full"], Field(description=(
    "summary (default): per file the status, hunk count, rules and the markers left for a person; full: also the "
    "review document (each hunk with its rules and why). One path: one file's document"))]
JsonValue = str | int | float | bool | None | list[Any] | dict[str, Any]
VerifyArgs = Annotated[list[JsonValue], Field(max_length=100, description=(
    "positional arguments for the pipeline on both sides, as JSON values, e.g. [\"data/images\", 224]; paths "
    "relative to the workspace root"))]
VerifyKwargs = Annotated[dict[str, JsonValue], Field(description=(
    "keyword arguments for the pipeline on both sides, e.g. {\"batch_size\": 4}; a @pipeline_def whose decorator "
    "sets no batch_size needs it here"))]
Iterations = Annotated[int, Field(ge=1, le=MAX_VERIFY_ITERATIONS, description=(
    "pipe.run() calls (and migrated iterations) to compare"))]
TimeoutS = Annotated[int, Field(ge=1, le=MAX_VERIFY_SECONDS, description=(
    "seconds before the run (both sides, DALI start-up included, often 10-20 s) is stopped"))]
Cells = Annotated[list[Annotated[int, Field(ge=1)]] | None, Field(max_length=1000, description=(
    "notebooks only: the 1-based cell numbers to run (markdown cells counted, as findings count them). Default: "
    "every code cell up to the one that defines `pipeline`, so the notebook's later cells (training, plots) "
    "do not run"))]
VerifyDetail = Annotated[Literal["summary", "full"], Field(description=(
    "summary (default): the verdict and each output's status; full: also the first mismatches, notes and device "
    "mappings"))]
Original = Annotated[str, Field(min_length=1, max_length=4096, description=(
    "the file that defines the pipeline (.py or .ipynb), relative to the root. After migrate_paths write=true pass "
    f"the same file: its original kept under {ORIGINALS_DIR}/ is the original side"))]
Migrated = Annotated[str | None, Field(max_length=4096, description=(
    "the dynamic-mode file to compare with. Default: the file as written when a write kept its original, else "
    "the original migrated in memory"))]
PipelineName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", max_length=200, description=(
    "the name the file defines at the top level: a @pipeline_def function, a Pipeline subclass, a Pipeline object "
    "or a function returning one (migrate_paths lists them per file)"))]
ProgramTimeoutS = Annotated[int, Field(ge=1, le=MAX_VERIFY_SECONDS, description=(
    "seconds each run of the configured command (original copy, then migrated copy) may take before it is "
    "killed"))]
ProgramDetail = Annotated[Literal["summary", "full"], Field(description=(
    "summary (default): verdict, counts, first difference (and the failing side's stderr); full: also both "
    "sides' stdout/stderr tails and notes"))]
RuleId = Annotated[str, Field(min_length=1, max_length=16, description="a rule ID such as DM101 (any case)")]

INSTRUCTIONS = f"""\
dali-migrate moves NVIDIA DALI pipeline-mode code (fn.*, @pipeline_def, Pipeline) to dynamic mode (ndd) and
proves each migration by running old and new side by side. Paths are relative to the workspace root; nothing
outside it is read or written. For files, the safe order is:
1. migrate_paths (a dry run by default): what would change, the pipelines per file, the spots left for a person.
2. verify original=<file> pipeline=<name> (with the args/kwargs it takes): runs the original and its
   migration in memory; verdict equal (or partial) means the migration computes the same. Where the
   project configures a verify-command, verify_program also compares the whole program's runs.
3. migrate_paths write=true: rewrites the files; each file's text before is kept in {ORIGINALS_DIR}/
   (verify and review then use it; no backup of your own needed).
4. lint_paths: checks the written dynamic-mode code (fix=true applies the safe fixes).
5. review: each change with the rules behind it, and every spot a person must handle.
Findings with fixed=false are marked in the code (`# dali-migrate: DMnnn ...`); explain_rule says what a rule
means. Notebooks (.ipynb) work in every tool. Answers are summaries: detail=full adds every finding and the
diffs (call with one path for one file's diff). For a snippet rather than files: migrate_code and lint_code.
A failed call comes back as an error result that says how to fix it."""


READ_ONLY = dict(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)


def _strict(tool):
    """Refuse arguments the tool does not take (an agent's ``dry_run: true`` must not be silently
    dropped), and say so in the schema (``additionalProperties: false``)."""
    base = tool.fn_metadata.arg_model

    class Strict(base):
        model_config = ConfigDict(extra="forbid", title=f"{tool.name} arguments")

    tool.fn_metadata.arg_model = Strict
    tool.parameters = Strict.model_json_schema(by_alias=True)
    return tool


def _argument_problems(name: str, error: ValidationError, schema: dict) -> str:
    """Pydantic's complaint as a message the model can act on: each field, what is wrong, what it takes."""
    properties = schema.get("properties", {})
    problems = []
    for err in error.errors():
        field = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        top = str(err["loc"][0]) if err["loc"] else ""
        if err["type"] == "extra_forbidden":
            problems.append(f"{field}: not an argument of {name} (it takes: {', '.join(properties)})")
            continue
        if err["type"] == "missing":
            problems.append(f"{field}: required")
        else:
            given = repr(err.get("input"))
            problems.append(f"{field}: {err['msg'].lower()} (got {given[:60]}{'...' if len(given) > 60 else ''})")
        described = properties.get(top, {}).get("description")
        if described:
            problems[-1] += f"; {top} is {described}"
    return f"invalid arguments for {name}: " + " | ".join(problems) + ". Fix them and call again."


def build_server(root: str | Path):
    """An MCPServer whose tools work under ``root``."""
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
    from mcp.server.mcpserver.tools import Tool
    from mcp.shared.exceptions import MCPError

    workspace = Workspace(root)

    def answer(call) -> CallToolResult:
        """The structured content once, with a short text; a ToolFailure becomes an isError result."""
        try:
            data, text = call()
        except ToolFailure as e:
            structured = e.data.model_dump(mode="json", exclude_none=True) if e.data is not None else None
            return CallToolResult(content=[TextContent(type="text", text=str(e))], structured_content=structured,
                                  is_error=True)
        return CallToolResult(content=[TextContent(type="text", text=text)],
                              structured_content=data.model_dump(mode="json", exclude_none=True))

    def migrate_code_tool(source: Source, filename: Filename = "snippet.py",
                          detail: Detail = "summary") -> Annotated[CallToolResult, MigrateCodeResult]:
        """Migrate DALI pipeline-mode code given as a string (a snippet or one module). Returns the
        migrated code, the spots left for a person (marked `# dali-migrate: DMnnn` in the code) and,
        with detail=full, every finding and the diff. Nothing is read or written; for files in the
        workspace use migrate_paths."""
        return answer(lambda: migrate_code(source, filename, detail))

    def migrate_paths_tool(paths: Paths, write: Write = False,
                           detail: Detail = "summary") -> Annotated[CallToolResult, MigratePathsResult]:
        """Migrate .py files and notebooks under the workspace root. A dry run unless write=true. Safe
        order: (1) this, as a dry run: statuses, the pipelines per file, spots for a person;
        (2) verify each pipeline; (3) this with write=true: rewrites the changed files atomically and
        keeps each one's text from before in .dali-migrate/originals/; (4) lint_paths; (5) review.
        Files without DALI are never touched; a second run changes nothing."""
        return answer(lambda: migrate_workspace_paths(workspace, paths, write, detail))

    def lint_code_tool(source: Source, filename: Filename = "snippet.py", fix: CodeFix = False,
                       unsafe_fixes: UnsafeFixes = False) -> Annotated[CallToolResult, LintCodeResult]:
        """Lint dynamic-mode (ndd) code given as a string for the mistakes people and agents make
        (rules DM301-DM320, e.g. device='mixed', batch[i], len(batch)). fix=true returns fixed_source
        with the safe fixes. Nothing is written; for files use lint_paths."""
        return answer(lambda: lint_code(source, filename, fix, unsafe_fixes))

    def lint_paths_tool(paths: Paths, fix: Fix = False, unsafe_fixes: UnsafeFixes = False,
                        detail: Detail = "summary") -> Annotated[CallToolResult, LintPathsResult]:
        """Lint the dynamic-mode code in .py files and notebooks under the workspace root (step 4 of
        the safe order, after migrate_paths write=true): DM301-DM320. Writes only with fix=true (safe
        fixes, atomically)."""
        return answer(lambda: lint_workspace_paths(workspace, paths, fix, unsafe_fixes, detail))

    def review_tool(paths: Paths, format: ReviewFormat = "markdown",
                    detail: ReviewDetail = "summary") -> Annotated[CallToolResult, ReviewResult]:
        """Review the migration of these files (step 5 of the safe order): per file the rules behind
        its changes and every spot left for a person with a suggestion; detail=full adds the review
        document (each hunk with its rules and why). A file already written by migrate_paths is
        reviewed from its kept original. Nothing is written."""
        return answer(lambda: review_workspace_paths(workspace, paths, format, detail))

    def verify_tool(original: Original, pipeline: PipelineName, migrated: Migrated = None, args: VerifyArgs = [],
                    kwargs: VerifyKwargs = {}, iterations: Iterations = 5, timeout_s: TimeoutS = 120,
                    cells: Cells = None, detail: VerifyDetail = "summary") -> Annotated[CallToolResult, VerifyResult]:
        """Run a pipeline-mode pipeline and its dynamic-mode migration on the same arguments and compare
        every output and sample (step 2 of the safe order; again after the write, when it compares the
        kept original with the written file). This RUNS the user's code, in a child process stopped
        after timeout_s. Without a GPU, gpu/mixed run on the cpu on both sides (the answer says so).
        Notebooks: the code cells up to the one defining the pipeline run (or `cells`). Every answer
        carries a verdict; failed/incomplete come back as errors that say what to change."""
        return answer(lambda: verify_in_workspace(workspace, original, pipeline, migrated, args, kwargs, iterations,
                                                  timeout_s, cells, detail))

    def verify_program_tool(timeout_s: ProgramTimeoutS = 300,
                            detail: ProgramDetail = "summary") -> Annotated[CallToolResult, ProgramResult]:
        """Verify the whole program rather than one pipeline (an optional part of step 2, before the
        write): the command a person configured as verify-command in the workspace's pyproject.toml
        [tool.dali-migrate] (never a command from the call) runs in a copy of the workspace and in a
        migrated copy (inside .dali-migrate/runs/, removed afterwards); exit status, stdout (numbers
        within tolerance) and the verify-outputs folder are compared. This RUNS the user's program."""
        return answer(lambda: verify_workspace_program(workspace, timeout_s, detail))

    def explain_rule_tool(rule_id: RuleId) -> Annotated[CallToolResult, RuleDoc]:
        """What a rule ID from a finding or marker (e.g. DM101) means: what it does, why, a before/after
        example, whether its fix is safe, and what a person should do."""
        return answer(lambda: explain(rule_id))

    def server_info_tool() -> Annotated[CallToolResult, ServerInfo]:
        """The server's version, the DALI version its operator table comes from, its workspace root,
        where writes keep originals, and its limits."""
        info = ServerInfo(version=__version__, dali_table_version=optable.dali_version(), root=str(workspace.root),
                          originals=ORIGINALS_DIR, tools=sorted(TOOL_NAMES),
                          limits=Limits(max_source_bytes=MAX_SOURCE_BYTES, max_files=MAX_FILES,
                                        max_verify_iterations=MAX_VERIFY_ITERATIONS,
                                        max_verify_seconds=MAX_VERIFY_SECONDS))
        return answer(lambda: (info, f"dali-migrate {info.version} (DALI {info.dali_table_version}) at {info.root}"))

    writes = dict(readOnlyHint=False, destructiveHint=True, idempotentHint=True, openWorldHint=False)
    # User code can do anything: not read-only, not known to be harmless, may reach out.
    runs_user_code = dict(readOnlyHint=False, destructiveHint=True, idempotentHint=False, openWorldHint=True)
    specs = [
        ("migrate_code", migrate_code_tool, "Migrate a code snippet", READ_ONLY),
        ("migrate_paths", migrate_paths_tool, "Migrate workspace files (dry run unless write=true)", writes),
        ("lint_code", lint_code_tool, "Lint a dynamic-mode snippet", READ_ONLY),
        ("lint_paths", lint_paths_tool, "Lint workspace files (fixes only with fix=true)", writes),
        ("review", review_tool, "Review a migration", READ_ONLY),
        ("verify", verify_tool, "Run original and migrated pipelines and compare", runs_user_code),
        ("verify_program", verify_program_tool, "Run the configured program, original and migrated, and compare",
         runs_user_code),
        ("explain_rule", explain_rule_tool, "Explain a rule ID", READ_ONLY),
        ("server_info", server_info_tool, "Server version, root and limits", READ_ONLY),
    ]
    tools = [_strict(Tool.from_function(fn, name=name, title=title, annotations=ToolAnnotations(title=title, **hints),
                                        structured_output=True))
             for name, fn, title, hints in specs]
    schemas = {tool.name: tool.parameters for tool in tools}

    class _Server(MCPServer):
        async def call_tool(self, name, arguments, context=None):
            if name not in schemas:  # a protocol fault: JSON-RPC error, as the spec's own example has it
                raise MCPError(INVALID_PARAMS, f"Unknown tool: {name!r}; tools: {', '.join(schemas)}")
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as e:
                if isinstance(e.__cause__, ValidationError) and not isinstance(e, UnexpectedToolError):
                    message = _argument_problems(name, e.__cause__, schemas[name])
                    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)
                raise

    return _Server("dali-migrate", version=__version__, instructions=INSTRUCTIONS, tools=tools)


TOOL_NAMES = {"migrate_code", "migrate_paths", "lint_code", "lint_paths", "review", "verify", "verify_program",
              "explain_rule", "server_info"}
