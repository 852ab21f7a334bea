"""What the MCP tools take and give back: the limits of a call, the failure a tool answers with, and the
output models (structuredContent; one copy, the text content is a summary)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field



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


