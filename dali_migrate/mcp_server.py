"""The MCP server: dali-migrate's functions as tools for AI coding agents.

A thin adapter over the functions the CLI uses (``api``, ``lint``, ``review``, ``harness``), built on
the official SDK's ``MCPServer``. This module declares the tools' parameters and registers them; what each
tool does lives in ``mcp_tools`` (the workspace, the output models, migrate/lint/review/explain, verify).
What the server adds is what an agent needs to drive them well:

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

from pathlib import Path
from typing import Annotated, Any, Literal

from mcp_types import INVALID_PARAMS, CallToolResult, TextContent, ToolAnnotations
from pydantic import ConfigDict, Field, ValidationError

from . import __version__, optable
from .files import ORIGINALS_DIR
from .mcp_tools.models import (MAX_FILES, MAX_PATHS, MAX_SOURCE_BYTES, MAX_VERIFY_ITERATIONS, MAX_VERIFY_SECONDS,
                                 Limits, LintCodeResult, LintPathsResult, MigrateCodeResult, MigratePathsResult,
                                 ProgramResult, ReviewResult, RuleDoc, ServerInfo, ToolFailure, VerifyResult)
from .mcp_tools.operations import (explain, lint_code, lint_workspace_paths, migrate_code, migrate_workspace_paths,
                                   review_workspace_paths)
from .mcp_tools.verify import verify_in_workspace, verify_workspace_program
from .mcp_tools.workspace import Workspace


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
