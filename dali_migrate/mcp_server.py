"""The MCP server: dali-migrate's functions as tools for AI coding agents.

A thin adapter over the same functions the CLI uses (``dali_migrate.api``): every tool takes typed
input and returns a pydantic model, so clients get an output schema and structured content.

Security: the server reads and writes only under the workspace root it was started with (paths
are resolved, so ``..`` and symlinks that leave the root are refused), refuses oversized inputs,
writes only when a tool call asks for it, and never runs user code unless ``verify`` is called.
Bad requests (a path outside the root, oversized input, source that does not parse, malformed
arguments) get a JSON-RPC error (``INVALID_PARAMS``) that says what was wrong; the server stays up.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from . import __version__, optable
from .api import migrate_file
from .engine import MigrationResult, migrate_source
from .files import atomic_write, iter_source_files

MAX_SOURCE_BYTES = 1_000_000  # one file or snippet
MAX_FILES = 5_000  # one migrate_paths call

INVALID_PARAMS = -32602


class FindingModel(BaseModel):
    rule: str = Field(description="stable rule ID, e.g. DM101")
    severity: Literal["error", "warning", "info"]
    message: str
    path: str
    line: int = Field(description="1-based line in the original source (0: the whole file)")
    column: int
    fixed: bool = Field(description="False: a person must act; the code carries a `# dali-migrate:` marker")


class MigrateCodeResult(BaseModel):
    status: str = Field(description="migrated | needs-attention | clean | no-dali")
    changed: bool
    migrated: str
    diff: str
    findings: list[FindingModel]


class FileResult(BaseModel):
    path: str = Field(description="relative to the workspace root")
    status: str = Field(description="migrated | needs-attention | clean | no-dali | error")
    changed: bool
    written: bool
    error: str | None
    diff: str
    findings: list[FindingModel]


class MigratePathsResult(BaseModel):
    root: str
    write: bool
    exit_code: int = Field(description="the CLI's exit code: 0 nothing left, 1 pending/manual, 2 errors")
    files: list[FileResult]


class LintCodeResult(BaseModel):
    findings: list[FindingModel] = Field(description="what remains after the fixes (if fix=true)")
    fixed: list[FindingModel] = Field(description="findings removed by the applied fixes")
    fixed_source: str | None = Field(description="the source after fixes; null when nothing was fixed")


class LintFileResult(BaseModel):
    path: str
    error: str | None
    written: bool
    findings: list[FindingModel]
    fixed: list[FindingModel]


class LintPathsResult(BaseModel):
    root: str
    fix: bool
    exit_code: int = Field(description="0 clean, 1 findings remain, 2 errors")
    files: list[LintFileResult]


class ReviewMarker(BaseModel):
    rule: str
    line: int = Field(description="line in the original file")
    migrated_line: int = Field(description="line of the `# dali-migrate:` marker in the migrated code")
    message: str
    suggestion: str


class ReviewFile(BaseModel):
    path: str
    status: str
    error: str | None
    hunks: int
    rules: list[str] = Field(description="rule IDs behind this file's changes")
    markers: list[ReviewMarker]


class ReviewResult(BaseModel):
    format: Literal["markdown", "html"]
    document: str = Field(description="the review document: each hunk with its rules and why, then the markers")
    files: list[ReviewFile]


class VerifyOutput(BaseModel):
    index: int
    name: str
    status: Literal["equal", "different", "skipped"]
    reason: str
    random_handling: str = Field(description="'fed': random ops fed the same states on both sides; "
                                             "'skipped': random outputs not compared")
    samples_compared: int
    samples_different: int
    max_abs_error: float | None
    first_mismatches: list[str]


class VerifyResult(BaseModel):
    verdict: Literal["equal", "partial", "different", "failed", "incomplete"] = Field(
        description="equal; partial = equal where compared, some outputs not comparable; different; "
                    "failed = a side crashed; incomplete = not migrated or not runnable")
    equal: bool
    iterations: int
    outputs: list[VerifyOutput]
    devices: dict
    notes: list[str]
    error: str | None
    summary: str = Field(description="the human-readable report")


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


class ServerInfo(BaseModel):
    version: str
    dali_table_version: str
    root: str
    tools: list[str]


class BadRequest(Exception):
    """A request the server refuses; surfaces as a JSON-RPC INVALID_PARAMS error."""


def _models(findings) -> list[FindingModel]:
    return [FindingModel(**{k: v for k, v in f.to_dict().items() if k in FindingModel.model_fields})
            for f in findings]


def _findings(result: MigrationResult) -> list[FindingModel]:
    return _models(result.findings)


class Workspace:
    """Paths under one root; everything else is refused."""

    def __init__(self, root: str | Path):
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise ValueError(f"workspace root is not a folder: {root}")

    def resolve(self, path: str) -> Path:
        if "\x00" in path:
            raise BadRequest("path contains a NUL byte")
        candidate = (self.root / path).resolve()  # follows symlinks: a link out ends up outside
        if candidate != self.root and self.root not in candidate.parents:
            raise BadRequest(f"path is outside the workspace root {self.root}: {path}")
        if not candidate.exists():
            raise BadRequest(f"no such file or folder in the workspace: {path}")
        return candidate

    def relative(self, path: Path) -> str:
        return str(path.resolve().relative_to(self.root))

    def source_files(self, paths: list[str]) -> list[Path]:
        resolved = [self.resolve(p) for p in paths]
        files = []
        for f in iter_source_files(resolved):
            real = f.resolve()
            if real != self.root and self.root not in real.parents:
                raise BadRequest(f"{f} is a symlink that leaves the workspace root")
            files.append(real)
            if len(files) > MAX_FILES:
                raise BadRequest(f"more than {MAX_FILES} files; narrow the paths")
        return files


# -- the tool functions (plain Python, tested directly and through MCP) -------------------------

def _check_size(source: str) -> None:
    if len(source.encode("utf-8", "surrogatepass")) > MAX_SOURCE_BYTES:
        raise BadRequest(f"source is larger than {MAX_SOURCE_BYTES} bytes")


def _refuse_error(result, filename: str) -> None:
    """A snippet that does not parse is a bad request: say where."""
    if result.error:
        line = result.findings[0].line if result.findings else 0
        raise BadRequest(f"{filename}:{line}: {result.error}")


def _workspace_sources(workspace: Workspace, paths: list[str]):
    """``(path, relative path, too_big)`` for every source file under ``paths``, inside the root."""
    for path in workspace.source_files(paths):
        yield path, workspace.relative(path), path.stat().st_size > MAX_SOURCE_BYTES


def _migrate_workspace_files(workspace: Workspace, paths: list[str]):
    """``(path, MigrationResult)`` per file; pipelines defined in one file and used in another are
    migrated on both sides (the same project pre-scan as the CLI)."""
    from .project import scan_project

    sources = list(_workspace_sources(workspace, paths))
    project = scan_project([path for path, _, too_big in sources if not too_big])
    for path, rel, too_big in sources:
        yield path, _too_big_result(rel) if too_big else migrate_file(path, display=rel, project=project or None)


TOO_BIG = f"larger than {MAX_SOURCE_BYTES} bytes; skipped"


def _too_big_result(rel: str) -> MigrationResult:
    result = MigrationResult(path=rel, original="", migrated="")
    result.error = TOO_BIG
    return result


def migrate_code(source: str, filename: str = "snippet.py") -> MigrateCodeResult:
    _check_size(source)
    result = migrate_source(source, filename)
    _refuse_error(result, filename)
    return MigrateCodeResult(status=result.status, changed=result.changed, migrated=result.migrated,
                             diff=result.diff(), findings=_findings(result))


def migrate_workspace_paths(workspace: Workspace, paths: list[str], write: bool = False) -> MigratePathsResult:
    from .api import RunResult

    run = RunResult()
    files = []
    for path, result in _migrate_workspace_files(workspace, paths):
        rel = result.path
        written = False
        if write and result.changed:
            atomic_write(path, result.migrated)
            written = True
            run.written.append(rel)
        run.files.append(result)
        if result.uses_dali or result.error:
            files.append(FileResult(path=rel, status=result.status, changed=result.changed, written=written,
                                    error=result.error, diff=result.diff(), findings=_findings(result)))
    return MigratePathsResult(root=str(workspace.root), write=write, exit_code=run.exit_code(wrote=write),
                              files=files)


def lint_code(source: str, filename: str = "snippet.py", fix: bool = False,
              unsafe_fixes: bool = False) -> LintCodeResult:
    from .lint import lint_source

    _check_size(source)
    result = lint_source(source, filename, fix=fix, unsafe_fixes=unsafe_fixes)
    _refuse_error(result, filename)
    return LintCodeResult(findings=_models(result.findings), fixed=_models(result.fixed),
                          fixed_source=result.fixed_source)


def lint_workspace_paths(workspace: Workspace, paths: list[str], fix: bool = False) -> LintPathsResult:
    from .lint import LintRun, LintResult, lint_source
    from .files import read_source, SourceError

    run = LintRun()
    files = []
    for path, rel, too_big in _workspace_sources(workspace, paths):
        if too_big:
            result = LintResult(rel, "", error=TOO_BIG)
        else:
            try:
                result = lint_source(read_source(path), rel, fix=fix)
            except (SourceError, OSError) as e:
                result = LintResult(rel, "", error=str(e))
        written = False
        if fix and result.changed:
            atomic_write(path, result.fixed_source)
            written = True
        run.files.append(result)
        if result.findings or result.fixed or result.error:
            files.append(LintFileResult(path=rel, error=result.error, written=written,
                                        findings=_models(result.findings), fixed=_models(result.fixed)))
    return LintPathsResult(root=str(workspace.root), fix=fix, exit_code=run.exit_code(), files=files)


def review_workspace_paths(workspace: Workspace, paths: list[str], html: bool = False) -> ReviewResult:
    from .review import build_review, to_html, to_markdown

    results = [result for _, result in _migrate_workspace_files(workspace, paths)]
    review = build_review(results)
    files = []
    for f in review.files:
        rules = sorted({r for h in f.hunks for r in h.rule_ids})
        markers = [ReviewMarker(rule=m.finding.rule, line=m.finding.line, migrated_line=m.migrated_line,
                                message=m.finding.message, suggestion=m.suggestion) for m in f.markers]
        files.append(ReviewFile(path=f.path, status=f.status, error=f.error, hunks=len(f.hunks), rules=rules,
                                markers=markers))
    return ReviewResult(format="html" if html else "markdown",
                        document=to_html(review) if html else to_markdown(review), files=files)


MAX_VERIFY_ITERATIONS = 50
MAX_VERIFY_SECONDS = 600


def verify_in_workspace(workspace: Workspace, original: str, pipeline: str, migrated: str | None = None,
                        args: list | None = None, kwargs: dict | None = None, iterations: int = 5,
                        timeout_s: int = 120) -> VerifyResult:
    """Run ``dali-migrate verify`` in a child process (user code runs there, never in the server),
    killed after ``timeout_s``."""
    import json
    import subprocess
    import sys

    if not 1 <= iterations <= MAX_VERIFY_ITERATIONS:
        raise BadRequest(f"iterations must be between 1 and {MAX_VERIFY_ITERATIONS}")
    if not 1 <= timeout_s <= MAX_VERIFY_SECONDS:
        raise BadRequest(f"timeout_s must be between 1 and {MAX_VERIFY_SECONDS}")
    if not pipeline.isidentifier():
        raise BadRequest(f"pipeline must be a Python name, not {pipeline!r}")
    original_path = workspace.resolve(original)
    command = [sys.executable, "-m", "dali_migrate", "verify", str(original_path), "--pipeline", pipeline,
               "--iterations", str(iterations), "--json",
               "--args", json.dumps({"args": list(args or []), "kwargs": dict(kwargs or {})})]
    if migrated:
        command += ["--migrated", str(workspace.resolve(migrated))]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s, cwd=workspace.root)
    except subprocess.TimeoutExpired:
        raise BadRequest(f"verification did not finish within {timeout_s} s; it was stopped") from None
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise BadRequest("verify failed: " + (" | ".join(tail) or f"exit code {proc.returncode}")) from None
    if "verdict" not in report:
        raise BadRequest("verify failed: " + str(report.get("error") or report))
    outputs = [VerifyOutput(index=o["index"], name=o["name"], status=o["status"], reason=o.get("reason", ""),
                            random_handling=o.get("random_handling", ""),
                            samples_compared=o.get("samples_compared", 0),
                            samples_different=o.get("samples_different", 0),
                            max_abs_error=o.get("max_abs_error"),
                            first_mismatches=[_mismatch_text(m) for m in o.get("mismatches", [])[:5]])
               for o in report.get("outputs", [])]
    summary = "; ".join(f"output {o.index} ({o.name}): {o.status}" + (f" - {o.reason}" if o.reason else "")
                        for o in outputs)
    return VerifyResult(verdict=report["verdict"], equal=report["equal"], iterations=report["iterations"],
                        outputs=outputs, devices=report.get("devices", {}), notes=report.get("notes", []),
                        error=report.get("error"),
                        summary=f"{report['verdict']} over {report['iterations']} iterations: {summary}")


def _mismatch_text(m: dict) -> str:
    where = f"iteration {m.get('iteration')}, output {m.get('output')} ({m.get('name')})"
    if m.get("sample") is not None:
        where += f", sample {m['sample']}"
    text = f"{where}: {m.get('what')} differ"
    if m.get("original") is not None or m.get("migrated") is not None:
        text += f": original {m.get('original')}, migrated {m.get('migrated')}"
    return text + (f"; {m['detail']}" if m.get("detail") else "")


def explain(rule_id: str) -> RuleDoc:
    from .findings import all_rules

    rules = all_rules()
    rule = rules.get(rule_id.strip().upper())
    if rule is None:
        raise BadRequest(f"unknown rule {rule_id!r}; known: {', '.join(rules)}")
    return RuleDoc(id=rule.id, name=rule.name, severity=rule.severity, summary=rule.summary, why=rule.why,
                   before=rule.before, after=rule.after, fix=rule.fix, suggestion=rule.suggestion)


# -- the server ---------------------------------------------------------------------------------

def build_server(root: str | Path):
    """An MCPServer whose tools work under ``root``."""
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.shared.exceptions import MCPError

    workspace = Workspace(root)

    class _Server(MCPServer):
        async def call_tool(self, name, arguments, context=None, *args, **kwargs):
            try:
                return await super().call_tool(name, arguments, context, *args, **kwargs)
            except ToolError as e:
                cause = e.__cause__
                if isinstance(cause, ValidationError):
                    problems = "; ".join(f"{'.'.join(str(p) for p in err['loc']) or '(arguments)'}: {err['msg']}"
                                         for err in cause.errors())
                    raise MCPError(INVALID_PARAMS, f"invalid arguments for {name}: {problems}") from e
                if str(e).startswith("Unknown tool"):
                    raise MCPError(INVALID_PARAMS, str(e)) from e
                raise

    server = _Server(
        "dali-migrate",
        version=__version__,
        instructions=(
            "Migrate NVIDIA DALI pipeline-mode code to dynamic mode (ndd) and check the result. "
            "Start with migrate_code for a snippet or migrate_paths (dry run) for files; findings with "
            "fixed=false are spots a person must handle, marked in the code with `# dali-migrate: DMnnn`. "
            "explain_rule documents any rule ID."
        ),
    )

    def _guard(call):
        try:
            return call()
        except BadRequest as e:
            raise MCPError(INVALID_PARAMS, str(e)) from e

    @server.tool(name="migrate_code")
    def migrate_code_tool(source: str, filename: str = "snippet.py") -> MigrateCodeResult:
        """Migrate Python source given as a string. Returns the migrated code, the unified diff and
        the findings. Nothing is written."""
        return _guard(lambda: migrate_code(source, filename))

    @server.tool(name="migrate_paths")
    def migrate_paths_tool(paths: list[str], write: bool = False) -> MigratePathsResult:
        """Migrate .py files and folders under the workspace root (paths relative to it). A dry run
        unless write=true, which rewrites changed files atomically."""
        return _guard(lambda: migrate_workspace_paths(workspace, paths, write))

    @server.tool(name="lint_code")
    def lint_code_tool(source: str, filename: str = "snippet.py", fix: bool = False,
                       unsafe_fixes: bool = False) -> LintCodeResult:
        """Lint dynamic-mode (ndd) code given as a string for the mistakes people and agents make
        (rules DM301-DM320). fix=true returns the source with the safe fixes applied."""
        return _guard(lambda: lint_code(source, filename, fix, unsafe_fixes))

    @server.tool(name="lint_paths")
    def lint_paths_tool(paths: list[str], fix: bool = False) -> LintPathsResult:
        """Lint .py files and folders under the workspace root. Writes only when fix=true (safe fixes)."""
        return _guard(lambda: lint_workspace_paths(workspace, paths, fix))

    @server.tool(name="review")
    def review_tool(paths: list[str], html: bool = False) -> ReviewResult:
        """A review document of migrating these files/folders (under the workspace root): each diff
        hunk with the rule IDs behind it and why, then every spot left for a person with a suggestion.
        Nothing is written."""
        return _guard(lambda: review_workspace_paths(workspace, paths, html))

    @server.tool(name="verify")
    def verify_tool(original: str, pipeline: str, migrated: str | None = None, args: list | None = None,
                    kwargs: dict | None = None, iterations: int = 5, timeout_s: int = 120) -> VerifyResult:
        """Run a pipeline-mode pipeline (a @pipeline_def function, Pipeline subclass, or Pipeline
        object named `pipeline` in the file `original`) and its migration (the file `migrated`, or
        migrated on the fly) on the same arguments, and compare every output and sample. This RUNS
        the user's code, in a child process stopped after timeout_s seconds (at most 600);
        iterations at most 50."""
        return _guard(lambda: verify_in_workspace(workspace, original, pipeline, migrated, args, kwargs,
                                                  iterations, timeout_s))

    @server.tool(name="explain_rule")
    def explain_rule_tool(rule_id: str) -> RuleDoc:
        """What a rule ID (e.g. DM101) means: what it does, why, an example, and whether its fix is safe."""
        return _guard(lambda: explain(rule_id))

    @server.tool(name="server_info")
    def server_info_tool() -> ServerInfo:
        """The server's version, the DALI version its operator table comes from, and its workspace root."""
        return ServerInfo(version=__version__, dali_table_version=optable.dali_version(), root=str(workspace.root),
                          tools=sorted(TOOL_NAMES))

    return server


TOOL_NAMES = {"migrate_code", "migrate_paths", "lint_code", "lint_paths", "review", "verify", "explain_rule",
              "server_info"}
