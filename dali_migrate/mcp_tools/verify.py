"""The MCP verify tools: one pipeline, old and new side by side, in a child process of its own session
(``verify``), and the whole program with the configured command (``verify_program``)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path


from ..api import migrate_file
from ..engine import migrate_source
from ..files import ORIGINALS_DIR, state_dir
from .models import (MAX_SOURCE_BYTES, MAX_VERIFY_SECONDS, ProgramResult, ProgramRunOut, ToolFailure, VerifyOutput,
                     VerifyResult)
from .workspace import NotebookCells, Workspace, is_notebook, notebook_cells, too_big


# -- verify ------------------------------------------------------------------------------------

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


def _choose_cells(code: dict[int, str], pipeline: str, cells: list[int] | None, path: str) -> list[int]:
    if cells:
        missing = [c for c in cells if c not in code]
        if missing:
            raise ToolFailure(f"{path}: cell(s) {missing} are not Python code cells; the code cells are "
                              f"{sorted(code)}")
        return sorted(set(cells))
    defining = [n for n, text in code.items() if pipeline in _top_level_names(text)]
    if not defining:
        from ..harness.loading import still_pipeline_mode

        candidates = [f"cell[{n}] {name}" for n, text in code.items() for name in sorted(_top_level_names(text))
                      if still_pipeline_mode(text, name)]
        hint = f"; pipeline-mode definitions: {', '.join(candidates)}" if candidates else ""
        raise ToolFailure(f"{path}: no code cell defines {pipeline!r} at the top level{hint}; pass the name a cell "
                          f"defines (or `cells` to run)")
    return [n for n in code if n <= defining[-1]]


def _cell_lines(message: str, label: str, sides: dict[str, NotebookCells]) -> str:
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
    notebook = is_notebook(original_path.name)
    original_rel = workspace.relative(original_path)
    kept = workspace.kept_original(original_path) if migrated is None else None
    current = _read_text(original_path, original_rel)
    if migrated is not None:
        migrated_path = workspace.resolve(migrated)
        migrated_rel = workspace.relative(migrated_path)
        if is_notebook(migrated_path.name) != notebook:
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
        cell_map = {"original": NotebookCells(original_code, chosen), "migrated": NotebookCells(migrated_code, chosen)}
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
    if too_big(path):
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
    from ..harness.loading import still_pipeline_mode

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
    child = "from dali_migrate.mcp_tools.verify import verify_child; verify_child()"
    proc = subprocess.Popen([sys.executable, "-c", child],
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
    from ..harness import HarnessError, verify_sources

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

    from ..harness.programs import verify_configured_program

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


