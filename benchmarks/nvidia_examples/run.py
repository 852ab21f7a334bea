"""Run NVIDIA's docs examples as whole programs, before and after dali-migrate (issue 14).

    python benchmarks/nvidia_examples/run.py --dali-repo PATH [--commit C] [--only NAME]...
                                             [--json OUT] [--markdown OUT] [--work DIR] [--timeout S]
                                             [--no-reference]

For every folder under ``docs/examples`` of the DALI repository at PATH that holds both
``pipeline_mode.ipynb`` and NVIDIA's hand-written ``dynamic_mode.ipynb``:

1. the pipeline-mode notebook, the small files beside it and ``docs/examples/data`` are written into
   a scratch project with the repository's layout (read at run time from PATH, never stored here);
2. the data the examples read from DALI_extra is generated once (``data.py``) and handed to them
   through ``DALI_EXTRA_PATH``;
3. ``verify_program`` (dali_migrate/harness/programs.py) copies the project twice, migrates one copy,
   maps ``gpu``/``mixed`` to ``cpu`` in both when there is no GPU, runs the notebook in each as a
   program (``python -m dali_migrate.harness.run_notebook``: code cells in order, one namespace,
   matplotlib on Agg) and compares exit status and stdout;
4. each example is classified: does the original run on the CPU (and if not, its first error), what
   dali-migrate said (FULL: changed, no marker; MARKED: markers, with their rules; ERROR), does the
   migrated program run (its first error), is its stdout the same (or the first difference); and the
   code-cell line counts of the pipeline-mode notebook, its migration and NVIDIA's dynamic_mode.

Prints one line per example and a summary; ``--json`` writes everything. Not part of CI (it needs a
DALI repository); ``README.md`` beside this file has the measured table.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

from nvidia_examples import data  # noqa: E402
from nvidia_examples.source import DYNAMIC, EXAMPLES, PIPELINE, DaliRepo, SourceError  # noqa: E402


@dataclass
class Example:
    name: str  # the folder under docs/examples
    available: bool = True
    missing: list[str] = field(default_factory=list)  # files the repository could not give
    original_runs: bool | None = None
    original_error: str = ""
    original_cause: str = ""
    original_error_line: str = ""  # the source line the error points at
    migration: str = ""  # FULL | MARKED | UNCHANGED | ERROR
    marker_rules: list[str] = field(default_factory=list)
    migration_error: str = ""
    migrated_runs: bool | None = None  # None: not run (the original failed)
    migrated_error: str = ""
    migrated_error_line: str = ""
    stdout_equal: bool | None = None
    stdout_lines: int = 0  # lines of stdout compared
    not_idempotent: bool = False  # a second migration of the written notebook changes it again
    first_difference: str = ""
    verdict: str = ""  # verify_program's verdict
    reference_runs: bool | None = None  # NVIDIA's dynamic_mode.ipynb, devices mapped the same way
    reference_error: str = ""
    reference_changed: bool | None = None  # would dali-migrate change NVIDIA's dynamic-mode notebook?
    lines: dict = field(default_factory=dict)  # pipeline / migrated / dynamic: {"lines", "code"}
    seconds: float = 0.0
    device_mappings: int = 0


# -- what the runs said -------------------------------------------------------------------------

_CELL = re.compile(r'File "[^"]*:cell\[(\d+)\]", line (\d+)')
_EXCEPTION = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Warning))(?::\s?(.*))?$")


def first_error(stderr: str) -> str:
    """``cell[N]: Type: message`` from a run_notebook traceback; for DALI's multi-line errors the
    line after ``encountered:`` (what went wrong) rather than the pipeline-definition header."""
    lines = stderr.rstrip().splitlines()
    start = max((i for i, line in enumerate(lines) if line.startswith("Traceback")), default=None)
    if start is None:
        tail = [line for line in lines if line.strip()]
        return tail[-1].strip()[:300] if tail else ""
    cells = _CELL.findall("\n".join(lines[start:]))
    where = f"cell[{cells[-1][0]}] line {cells[-1][1]}: " if cells else ""
    for i in range(start + 1, len(lines)):
        found = _EXCEPTION.match(lines[i])
        if found and not lines[i].startswith(" "):
            kind, message = found.group(1), (found.group(2) or "").strip()
            rest = [line.strip() for line in lines[i + 1:] if line.strip()]
            if "encountered:" in rest:
                after = rest[rest.index("encountered:") + 1:]
                message = (message + " ... " if message else "") + (after[0] if after else "")
            elif not message and rest:
                message = rest[0]
            return f"{where}{kind.rsplit('.', 1)[-1]}: {message}"[:400]
    return where + lines[-1].strip()[:300]


def error_line(notebook: Path, stderr: str) -> str:
    """The notebook line the last ``cell[N]`` frame of a traceback points at (cells counted from 1,
    markdown included, as run_notebook names them)."""
    found = _CELL.findall(stderr)
    if not found:
        return ""
    from dali_migrate.harness.run_notebook import code_cells

    cell, line = (int(v) for v in found[-1])
    try:
        sources = dict(code_cells(notebook.read_text(encoding="utf-8")))
        return sources[cell].split("\n")[line - 1].strip()
    except (OSError, ValueError, KeyError, IndexError):
        return ""


def cause_of(error: str, line: str = "") -> str:
    """A short class for an original's failure on the CPU, from its first error and its line."""
    if "'tuple' object is not callable" in error and ".shape()" in line:
        return "code for GPU outputs: TensorGPU.shape() is a method, a CPU sample's shape a tuple"
    if "ModuleNotFoundError" in error or "No module named" in error:
        module = re.search(r"No module named '([^']+)'", error)
        return f"needs module {module.group(1)}" if module else "needs a module"
    if re.search(r"(?i)no (such file|such directory)|FileNotFound|does not exist|cannot open", error):
        return "data missing"
    if re.search(r"(?i)(is not supported by the CPU|not (available|implemented) (for|on) (the )?CPU|"
                 r"has no CPU|GPU-only|CUDA|device=\"cpu\".*not|cpu.*not supported|"
                 r"backend.*not.*cpu|no CPU implementation|not registered for cpu)", error):
        return "GPU-only operator"
    return "other"


def code_lines(notebook_text: str | None) -> dict | None:
    """Lines of the code cells: all of them, and those that are not blank or a comment."""
    if notebook_text is None:
        return None
    from dali_migrate.harness.run_notebook import code_cells

    try:
        sources = [source for _, source in code_cells(notebook_text)]
    except ValueError:
        return None
    lines = [line for source in sources for line in source.splitlines()]
    code = [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
    return {"lines": len(lines), "code": len(code)}


# -- one example --------------------------------------------------------------------------------

def verify_notebook(repo: DaliRepo, name: str, notebook: str, scratch: Path, timeout_s: float):
    """verify_program on a project holding the example's ``notebook`` with the repository's layout,
    the notebook run as a program by run_notebook."""
    from dali_migrate.harness.programs import verify_program

    if scratch.exists():
        shutil.rmtree(scratch)
    missing = repo.extract_example(name, scratch / "project", notebook)
    path = f"{EXAMPLES}/{name}/{notebook}"
    command = f"{shlex.quote(sys.executable)} -m dali_migrate.harness.run_notebook {shlex.quote(path)}"
    report = verify_program(scratch / "project", command, timeout_s=timeout_s, scratch=scratch / "runs", jobs=1)
    return report, missing


def run_example(repo: DaliRepo, name: str, work: Path, timeout_s: float, reference: bool = True) -> Example:
    example = Example(name)
    folder = f"{EXAMPLES}/{name}"
    pipeline = repo.read(f"{folder}/{PIPELINE}")
    dynamic = repo.read(f"{folder}/{DYNAMIC}")
    example.lines["dynamic"] = code_lines(dynamic.decode("utf-8", "replace")) if dynamic else None
    scratch = work / "examples" / name.replace("/", "__")
    if dynamic is not None and reference:
        # NVIDIA's own dynamic-mode version, on the same data and devices: the program the migration
        # should come close to. Its "migrated" copy is the same notebook (nothing to migrate).
        ref, _ = verify_notebook(repo, name, DYNAMIC, scratch / "reference", timeout_s)
        example.reference_runs = ref.original.ok
        example.reference_changed = bool(ref.migration_summary.get("changed")) if ref.verdict != "error" else None
        if not ref.original.ok:
            example.reference_error = first_error(ref.original.stderr) or ref.original.describe() or ref.error
    if pipeline is None:
        example.available = False
        example.missing = [f"{folder}/{PIPELINE}"]
        return example
    example.lines["pipeline"] = code_lines(pipeline.decode("utf-8", "replace"))

    notebook = f"{folder}/{PIPELINE}"
    started = time.perf_counter()
    report, example.missing = verify_notebook(repo, name, PIPELINE, scratch / "pipeline", timeout_s)
    example.seconds = round(time.perf_counter() - started, 1)
    example.verdict = report.verdict
    example.device_mappings = len(report.device_mappings)
    if report.verdict == "error":
        example.migration, example.migration_error = "ERROR", report.error
        return example

    migrated_text = None
    for result in report.migration.files if report.migration else []:
        if result.path.endswith(notebook):
            migrated_text = result.migrated if result.error is None else None
            if result.error:
                example.migration, example.migration_error = "ERROR", result.error
            elif not example.migration:
                example.migration = "MARKED" if report.marked else "FULL" if result.changed else "UNCHANGED"
    example.marker_rules = report.marker_rules
    example.not_idempotent = bool(report.not_idempotent)
    example.lines["migrated"] = code_lines(migrated_text)

    example.original_runs = report.original.ok
    if not example.original_runs:
        example.original_error = first_error(report.original.stderr) or report.original.describe()
        example.original_error_line = error_line(Path(report.original_root) / notebook, report.original.stderr)
        example.original_cause = cause_of(example.original_error, example.original_error_line)
        return example
    example.migrated_runs = report.migrated.ok
    if not example.migrated_runs:
        example.migrated_error = first_error(report.migrated.stderr) or report.migrated.describe()
        example.migrated_error_line = error_line(Path(report.migrated_root) / notebook, report.migrated.stderr)
        return example
    example.stdout_equal = not any(d.what == "stdout" for d in report.differences)
    example.stdout_lines = report.stdout_lines
    if report.differences:
        d = report.differences[0]
        example.first_difference = f"{d.what} line {d.line}: {d.original!r} != {d.migrated!r}"[:300]
    return example


# -- the whole run ------------------------------------------------------------------------------

def summarize(examples: list[Example]) -> dict:
    available = [e for e in examples if e.available]
    full = [e for e in available if e.migration == "FULL"]
    cpu = [e for e in available if e.original_runs]
    return {
        "pairs": len(examples),
        "available": len(available),
        "original_runs_on_cpu": len(cpu),
        "migration": {status: sum(e.migration == status for e in available)
                      for status in ("FULL", "MARKED", "UNCHANGED", "ERROR")},
        "full_and_original_runs": sum(e.original_runs is True for e in full),
        "full_migrated_runs": sum(e.migrated_runs is True for e in full),
        "full_stdout_equal": sum(e.stdout_equal is True for e in full),
        "migrated_runs": sum(e.migrated_runs is True for e in available),
        "stdout_equal": sum(e.stdout_equal is True for e in available),
        "reference_runs_on_cpu": sum(e.reference_runs is True for e in examples),
        "reference_changed_by_migrate": sum(e.reference_changed is True for e in examples),
        "not_idempotent": sum(e.not_idempotent for e in available),
    }


def line_of(e: Example) -> str:
    reference = ("" if e.reference_runs is None else "; NVIDIA's dynamic_mode runs" if e.reference_runs
                 else f"; NVIDIA's dynamic_mode fails: {e.reference_error}")
    if not e.available:
        return f"{e.name}: not available ({', '.join(e.missing)}){reference}"
    parts = [f"{e.name}: migration {e.migration}" + (f" ({', '.join(e.marker_rules)})" if e.marker_rules else "")]
    if e.migration_error:
        parts.append(f"migration error: {e.migration_error}")
    if e.original_runs is False:
        parts.append(f"original fails on CPU [{e.original_cause}]: {e.original_error} [{e.original_error_line}]")
    elif e.original_runs:
        if e.migrated_runs:
            parts.append("migrated runs, stdout " + (f"equal ({e.stdout_lines} lines)" if e.stdout_equal
                                                     else f"differs: {e.first_difference}"))
        else:
            parts.append(f"migrated fails: {e.migrated_error} [{e.migrated_error_line}]")
    return "; ".join(parts) + reference + f" ({e.seconds} s)"


SOURCE_FIELDS = ("original_error_line", "migrated_error_line")


def stored(e: Example) -> dict:
    """What --json and --markdown keep of an example: everything but the source lines the errors point
    at, which are the notebook's own code (printed on the console, not stored)."""
    return {k: v for k, v in asdict(e).items() if k not in SOURCE_FIELDS}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(examples: list[Example]) -> str:
    """The README's table: one row per notebook pair."""
    def lines(key):
        return lambda e: (f"{e.lines[key]['code']}" if e.lines.get(key) else "-")

    rows = ["| example | original on CPU | dali-migrate | migrated runs | stdout | code lines: pipeline / "
            "migrated / NVIDIA dynamic | NVIDIA dynamic on CPU |", "|---|---|---|---|---|---|---|"]
    for e in examples:
        reference = "-" if e.reference_runs is None else "yes" if e.reference_runs else f"no: {e.reference_error}"
        counts = " / ".join(f(e) for f in (lines("pipeline"), lines("migrated"), lines("dynamic")))
        if not e.available:
            rows.append(f"| {e.name} | not in the repository copy | - | - | - | {counts} | {_cell(reference)} |")
            continue
        original = "yes" if e.original_runs else f"no ({e.original_cause}): {e.original_error}"
        status = e.migration + (f" ({', '.join(e.marker_rules)})" if e.marker_rules else "")
        if e.migration_error:
            status += f": {e.migration_error}"
        if e.not_idempotent:
            status += ", not idempotent"
        migrated = "-" if e.migrated_runs is None else "yes" if e.migrated_runs else f"no: {e.migrated_error}"
        stdout = ("-" if e.stdout_equal is None else f"equal ({e.stdout_lines} lines)" if e.stdout_equal
                  else f"differs: {e.first_difference}")
        rows.append("| " + " | ".join(_cell(c) for c in (e.name, original, status, migrated, stdout, counts,
                                                          reference)) + " |")
    return "\n".join(rows) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dali-repo", required=True, help="a DALI checkout or git repository")
    parser.add_argument("--commit", help="read this commit (default: the working tree, or HEAD if bare)")
    parser.add_argument("--only", action="append", default=[],
                        help="run the examples whose folder contains this text (repeatable)")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--markdown", help="write the results as a Markdown table here")
    parser.add_argument("--work", help="scratch folder (kept; default: a temporary folder)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per run of a notebook")
    parser.add_argument("--no-reference", action="store_true",
                        help="do not run NVIDIA's dynamic_mode.ipynb (it runs by default, for comparison)")
    args = parser.parse_args(argv)

    try:
        repo = DaliRepo(args.dali_repo, args.commit)
    except SourceError as e:
        print(f"run.py: {e}", file=sys.stderr)
        return 2
    names = [n for n in repo.pairs() if not args.only or any(o in n for o in args.only)]
    if not names:
        print(f"run.py: no example pair found in {repo.describe()}", file=sys.stderr)
        return 2
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="nvidia-examples-"))
    work.mkdir(parents=True, exist_ok=True)
    extra = work / "dali_extra"
    print(f"{len(names)} example pair(s) in {repo.describe()}; scratch {work}")
    for what, made in data.generate(extra).items():
        print(f"  data {what}: {made}")
    os.environ["DALI_EXTRA_PATH"] = str(extra)
    # The examples call DALI's tools (tfrecord2idx) by name: the ones installed beside this Python.
    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in [str(ROOT), os.environ.get("PYTHONPATH")] if p)

    examples = []
    for name in names:
        example = run_example(repo, name, work, args.timeout, reference=not args.no_reference)
        examples.append(example)
        print(line_of(example), flush=True)
    summary = summarize(examples)
    print(json.dumps(summary, indent=1))
    if args.json:
        result = {"tool": "benchmarks/nvidia_examples/run.py", "repository": repo.describe(),
                  "commit": repo.commit, "date": time.strftime("%Y-%m-%d"),
                  "dali_migrate_commit": _own_commit(), "summary": summary,
                  "examples": [stored(e) for e in examples]}
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    if args.markdown:
        Path(args.markdown).write_text(markdown_table(examples))
    return 0


def _own_commit() -> str | None:
    import subprocess

    proc = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True)
    return proc.stdout.strip() or None


if __name__ == "__main__":
    raise SystemExit(main())
