"""Program-level verification (``dali-migrate verify --run CMD PATH``): does the migrated *program* still
do what the original did?

``verify`` compares one pipeline's outputs; this compares whole programs, the way a user runs them.

1. The project folder ``root`` is copied twice into a scratch folder (``original/`` and ``migrated/``),
   without ``.git``, virtual environments, caches, ``.dali-migrate`` and the other folders discovery
   skips. Symbolic links to folders (data sets) stay links to the same place; links to files are copied
   as files, so that nothing written in a copy reaches the user's tree.
2. ``migrated/`` is migrated in place with the project-wide API (``migrate_paths(..., write=True)``), so
   pipelines imported across modules are seen, with the copy's own ``[tool.dali-migrate]`` settings.
   Its findings are kept: open markers (manual findings, and ``# dali-migrate:`` comments found in the
   migrated text) and the differences the migration itself reported (random values, shuffle order, ...).
   A second migration of the written copy is run in memory: any file it would change again is reported.
3. Without a GPU, ``mixed``/``gpu`` devices are mapped to ``cpu`` in both copies (``.py`` files and the
   code cells of notebooks), as ``verify`` does, and every mapping is listed: a verdict reached on the
   CPU says nothing about GPU kernels.
4. The command runs in both copies (no shell: ``shlex.split``; the copy is the working folder; the same
   environment, with ``PYTHONPATH`` entries that point into ``root`` pointed into the copy; the whole
   process group is killed after ``timeout_s``). The original runs first: if it fails, there is nothing
   to compare, and the migrated copy is not run (``concurrent=True`` runs both at once instead).
5. Compared: exit status (the original must exit 0; a migrated copy that does not is ``migrated-failed``);
   stdout line by line, where a token that reads as a number is compared as a
   number (integers exactly, other numbers within ``atol + rtol * |original|``; the rest of the line
   exactly); every file under ``outputs`` (a folder relative to ``root``, emptied in both copies before the
   runs): the same set of files, ``.npy``/``.npz`` arrays numerically, text files like stdout, other files
   byte for byte. stderr is kept in the report, not compared. The first difference is named with both
   sides' text.

Verdicts: ``equal``, ``different``, ``original-failed`` (the original exits non-zero or times out:
nothing to compare), ``migrated-failed``, ``timeout`` (the migrated copy ran past ``timeout_s``),
``error`` (bad arguments, or the copy or migration could not be made). ``ProgramReport.outcome`` adds
what the migration said: ``marked-equal``, ``marked-different`` (the migration left markers or reported
a difference), against plain ``equal`` / ``different``.
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..findings import MARKER_PREFIX
from .compare import Tolerance
from .devices import DeviceMapping, cuda_device_count, map_devices_to_cpu

# Rules whose finding says that the migrated program computes something different on purpose
# (reviewed by hand: each one's message says the values or the order differ between the modes).
DIFFERENCE_RULES = frozenset({"DM202", "DM203", "DM205", "DM217", "DM222"})
TEXT_SUFFIXES = frozenset({".txt", ".csv", ".tsv", ".json", ".jsonl", ".log", ".md", ".yaml", ".yml", ".xml",
                           ".html", ".ini", ".cfg", ".toml", ".py"})
_MARKER = re.compile(re.escape(MARKER_PREFIX) + r"\s*(DM\d{3})")
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?!\w)"
                     r"|(?<![\w.])[-+]?(?:nan|inf)(?!\w)")
_INTEGER = re.compile(r"[-+]?\d+")
_TAIL = 4000  # characters of stdout/stderr kept in the report for each side


class ProgramError(Exception):
    """Bad arguments or a copy that cannot be made: verdict ``error``, CLI exit status 2."""


@dataclass
class ProgramRun:
    """One side's run of the command."""

    exit_code: int | None = None  # None: it did not finish (timed out) or did not start
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out

    def describe(self) -> str:
        if self.timed_out:
            return f"timed out after {self.seconds:.1f} s"
        return f"exit {self.exit_code} in {self.seconds:.1f} s"

    def to_dict(self) -> dict:
        return {"exit_code": self.exit_code, "timed_out": self.timed_out, "seconds": round(self.seconds, 3),
                "stdout_tail": self.stdout[-_TAIL:], "stderr_tail": self.stderr[-_TAIL:]}


@dataclass
class Difference:
    """The first place where the two runs disagree."""

    what: str  # "stdout" | "output file" | "output files" (the set of files)
    path: str = ""  # the output file, relative to root
    line: int | None = None  # 1-based line (stdout, text files)
    original: str = ""
    migrated: str = ""
    detail: str = ""

    def to_dict(self) -> dict:
        return dict(self.__dict__)

    def format(self) -> str:
        where = self.what + (f" {self.path}" if self.path else "") + (f", line {self.line}" if self.line else "")
        text = f"{where}: {self.detail}" if self.detail else where
        return f"{text}\n    original: {self.original}\n    migrated: {self.migrated}"


@dataclass
class ProgramReport:
    root: str
    command: str
    outputs: str | None = None
    verdict: str = "equal"
    error: str = ""
    tolerance: Tolerance = field(default_factory=Tolerance)
    original: ProgramRun = field(default_factory=ProgramRun)
    migrated: ProgramRun = field(default_factory=ProgramRun)
    differences: list[Difference] = field(default_factory=list)  # the first one of each kind compared
    stdout_lines: int = 0
    different_lines: int = 0
    output_files: int = 0
    migration_summary: dict = field(default_factory=dict)
    manual_findings: list[dict] = field(default_factory=list)  # open markers: the migration's manual findings
    text_markers: dict = field(default_factory=dict)  # file -> marker rules found in the migrated text
    reported_differences: list[dict] = field(default_factory=list)  # findings of DIFFERENCE_RULES
    not_idempotent: list[str] = field(default_factory=list)  # files a second migration changes again
    devices: dict = field(default_factory=dict)
    device_mappings: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    timings: dict = field(default_factory=dict)  # seconds per step: copy, migrate, devices
    original_root: str = ""  # the copies (removed after the run unless a scratch folder was given)
    migrated_root: str = ""
    migration: object = None  # the api.RunResult of the copy's migration (not serialized)
    migrated_files: dict = field(default_factory=dict)  # relative path -> its MigrationResult (not serialized)

    @property
    def open_markers(self) -> int:
        """Manual findings of the migration, or marker comments in the migrated text, whichever is more."""
        return max(len(self.manual_findings), sum(len(rules) for rules in self.text_markers.values()))

    @property
    def marker_rules(self) -> list[str]:
        rules = {f["rule"] for f in self.manual_findings}
        for found in self.text_markers.values():
            rules.update(found)
        return sorted(rules)

    @property
    def marked(self) -> bool:
        return self.open_markers > 0

    @property
    def outcome(self) -> str:
        """The verdict together with what the migration said: ``equal``, ``marked-equal``,
        ``marked-different`` (markers, or a difference the migration reported), ``different`` (a silent
        difference), or the failure verdicts as they are."""
        if self.verdict == "equal":
            return "marked-equal" if self.marked else "equal"
        if self.verdict == "different":
            return "marked-different" if self.marked or self.reported_differences else "different"
        return self.verdict

    @property
    def exit_code(self) -> int:
        return 0 if self.verdict == "equal" else 2 if self.verdict == "error" else 1

    def to_dict(self) -> dict:
        return {
            "tool": "dali-migrate verify --run",
            "root": self.root, "command": self.command, "outputs": self.outputs,
            "verdict": self.verdict, "outcome": self.outcome, "equal": self.verdict == "equal",
            "error": self.error or None, "tolerance": self.tolerance.to_dict(),
            "original": self.original.to_dict(), "migrated": self.migrated.to_dict(),
            "first_difference": self.differences[0].to_dict() if self.differences else None,
            "differences": [d.to_dict() for d in self.differences],
            "stdout_lines": self.stdout_lines, "different_lines": self.different_lines,
            "output_files": self.output_files,
            "migration": {**self.migration_summary, "open_markers": self.open_markers,
                          "marker_rules": self.marker_rules, "manual_findings": self.manual_findings,
                          "text_markers": self.text_markers, "reported_differences": self.reported_differences,
                          "not_idempotent": self.not_idempotent},
            "devices": {**self.devices, "mappings": self.device_mappings},
            "notes": self.notes,
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
            "copies": {"original": self.original_root or None, "migrated": self.migrated_root or None},
            "exit_code": self.exit_code,
        }

    def format(self) -> str:
        lines = [f"dali-migrate verify --run: {self.command}  (in copies of {self.root})"]
        if self.verdict == "error":
            lines.append(f"error: {self.error}")
            lines.append("verdict: ERROR")
            return "\n".join(lines)
        summary = self.migration_summary
        marker_text = (f"{self.open_markers} open marker(s) ({', '.join(self.marker_rules)})" if self.marked
                       else "no open marker")
        lines.append(f"migration: {summary.get('files', 0)} file(s), {summary.get('changed', 0)} changed, "
                     f"{marker_text}")
        if self.reported_differences:
            rules = sorted({f["rule"] for f in self.reported_differences})
            lines.append(f"  differences the migration reported: {', '.join(rules)}")
        if self.not_idempotent:
            lines.append(f"  a second migration changes again: {', '.join(self.not_idempotent)}")
        dev = self.devices
        if dev.get("mapped_to_cpu"):
            head = f"devices: no GPU (CUDA devices: {dev.get('cuda_devices', 0)})"
            if self.device_mappings:
                lines.append(head + "; GPU requests mapped to cpu in both copies:")
                lines += [f"  {_mapping_text(m)}" for m in self.device_mappings]
            else:
                lines.append(head + "; everything already runs on cpu")
        else:
            lines.append(f"devices: as written (CUDA devices: {dev.get('cuda_devices', 0)})")
        for note in self.notes:
            lines.append(f"note: {note}")
        lines.append(f"original: {self.original.describe()}")
        if self.verdict != "original-failed":
            lines.append(f"migrated: {self.migrated.describe()}")
        failed = {"original-failed": self.original, "migrated-failed": self.migrated,
                  "timeout": self.migrated}.get(self.verdict)
        if failed is not None:
            tail = failed.stderr.strip().splitlines()[-15:]
            if tail:
                lines.append("  stderr (last lines):")
                lines += [f"    {line}" for line in tail]
        if self.verdict in ("equal", "different"):
            lines.append(f"stdout: {self.stdout_lines} line(s) compared, {self.different_lines} different")
            if self.outputs is not None:
                lines.append(f"outputs ({self.outputs}): {self.output_files} file(s) compared")
            for d in self.differences:
                lines.append(f"first difference in {d.format()}")
        words = {"equal": "EQUAL", "different": "DIFFERENT", "original-failed": "ORIGINAL FAILED (nothing to compare)",
                 "migrated-failed": "MIGRATED FAILED", "timeout": "MIGRATED TIMED OUT"}
        verdict = words[self.verdict]
        if self.verdict in ("equal", "different") and self.outcome.startswith("marked"):
            verdict += " (marked: the migration left markers or reported a difference)"
        lines.append(f"verdict: {verdict} (tolerance atol={self.tolerance.atol:g}, rtol={self.tolerance.rtol:g})")
        return "\n".join(lines)


def _mapping_text(m: dict) -> str:
    text = f"{m['path']}:{m['line']}: {m['before']} -> {m['after']}"
    return f"{text} ({m['note']})" if m.get("note") else text


# -- the public entry points -----------------------------------------------------------------------------

def verify_program(root, command: str, *, outputs: str | None = None, timeout_s: float = 600.0,
                   atol: float = 1e-5, rtol: float = 1e-5, scratch=None, jobs: int | None = None,
                   force_cpu: bool | None = None, concurrent: bool = False, env: dict | None = None,
                   paths: list[str] | None = None) -> ProgramReport:
    """Run ``command`` in a copy of the project ``root`` and in a migrated copy, and compare (module
    docstring). ``scratch``: the folder the copies go in (kept; by default a temporary folder, removed
    afterwards). ``force_cpu``: map devices to the CPU (default: when DALI sees no CUDA device).
    ``concurrent``: run both copies at the same time (faster; off by default, because two programs that
    each expect a GPU or a port to themselves may disturb each other). ``env``: the environment both runs
    get (default: this process's). ``paths``: the files or folders of the project (relative to ``root``) to migrate,
    the rest left as it was, as a user who migrates one module of a program (default: the whole project)."""
    report = ProgramReport(root=str(root), command=command, outputs=outputs, tolerance=Tolerance(atol, rtol))
    try:
        argv, root_path, outputs_rel = _check_arguments(root, command, outputs, timeout_s, atol, rtol)
    except ProgramError as e:
        report.verdict, report.error = "error", str(e)
        return report
    owned = scratch is None
    try:
        base = Path(tempfile.mkdtemp(prefix="dali-migrate-run-")) if owned else _scratch_folder(scratch)
    except (OSError, ProgramError) as e:
        report.verdict, report.error = "error", f"cannot make the scratch folder: {e}"
        return report
    try:
        _verify_in(report, argv, root_path, outputs_rel, base, base if owned else Path(scratch), timeout_s, jobs,
                   force_cpu, concurrent, dict(os.environ if env is None else env), paths)
    except ProgramError as e:
        report.verdict, report.error = "error", str(e)
    finally:
        if owned:
            shutil.rmtree(base, ignore_errors=True)
            report.original_root = report.migrated_root = ""
    return report


def verify_configured_program(root, *, scratch, timeout_s: float, atol: float = 1e-5, rtol: float = 1e-5,
                              jobs: int | None = 1) -> ProgramReport:
    """``verify_program`` with the command (and outputs folder) configured in ``ROOT/pyproject.toml``'s
    ``[tool.dali-migrate]`` table (``verify-command``, ``verify-outputs``), never a command from the caller:
    what a server offers clients that must not gain a shell through it. Only that one file is read
    (nothing above ``root``); without a configured command the verdict is ``error``. ``timeout_s`` bounds
    each run; the two runs go one after the other, so the whole check takes at most the migration plus
    twice ``timeout_s``."""
    from ..config import TABLE, ConfigError, Config, load_config

    report = ProgramReport(root=str(root), command="")
    pyproject = Path(root) / "pyproject.toml"
    try:
        config = load_config(pyproject) if pyproject.is_file() else Config()
    except ConfigError as e:
        report.verdict, report.error = "error", str(e)
        return report
    if not config.verify_command:
        report.verdict = "error"
        report.error = (f"{pyproject}: no verify-command in [tool.{TABLE}]; a program can only be verified with "
                        f"the command the project configures")
        return report
    return verify_program(root, config.verify_command, outputs=config.verify_outputs, timeout_s=timeout_s,
                          atol=atol, rtol=rtol, scratch=scratch, jobs=jobs)


# -- steps -------------------------------------------------------------------------------------------------

def _check_arguments(root, command, outputs, timeout_s, atol, rtol) -> tuple[list[str], Path, str | None]:
    if not isinstance(command, str) or not command.strip():
        raise ProgramError("the command is empty")
    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise ProgramError(f"the command cannot be split into arguments: {e}") from None
    root_path = Path(root)
    if not root_path.is_dir():
        raise ProgramError(f"{root}: not a folder (give the project folder the command runs in)")
    if not (timeout_s > 0):
        raise ProgramError(f"the timeout must be positive, not {timeout_s}")
    if not (atol >= 0 and rtol >= 0):
        raise ProgramError("atol and rtol must not be negative")
    outputs_rel = None
    if outputs is not None:
        rel = Path(outputs)
        if rel.is_absolute() or ".." in rel.parts or not str(outputs).strip():
            raise ProgramError(f"--outputs {outputs}: must be a folder inside the project, relative to it")
        outputs_rel = rel.as_posix()
    return argv, root_path.resolve(), outputs_rel


def _scratch_folder(scratch) -> Path:
    """A fresh folder for this run's copies inside ``scratch`` (which earlier runs may have used too)."""
    Path(scratch).mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="run-", dir=scratch))


def _verify_in(report: ProgramReport, argv, root: Path, outputs: str | None, base: Path, scratch: Path,
               timeout_s: float, jobs, force_cpu, concurrent: bool, base_env: dict, paths=None) -> None:
    original, migrated = base / "original", base / "migrated"
    report.original_root, report.migrated_root = str(original), str(migrated)
    started = time.perf_counter()
    for copy in (original, migrated):
        _copy_project(root, copy, skip=scratch)
    report.timings["copy"] = time.perf_counter() - started
    _migrate_copy(report, migrated, jobs, paths)
    report.timings["migrate"] = time.perf_counter() - started - report.timings["copy"]

    started = time.perf_counter()
    count = cuda_device_count()
    to_cpu = (count == 0) if force_cpu is None else force_cpu
    report.devices = {"cuda_devices": count, "gpu_available": count > 0, "mapped_to_cpu": to_cpu}
    if to_cpu:
        for side, copy in (("original", original), ("migrated", migrated)):
            report.device_mappings += _map_tree_devices(copy, side, report.notes)
    report.timings["devices"] = time.perf_counter() - started

    env = _environment(base_env, root, original), _environment(base_env, root, migrated)
    for copy in (original, migrated):
        if outputs is not None:
            folder = copy / outputs
            if folder.is_symlink() or folder.is_file():
                raise ProgramError(f"--outputs {outputs}: not a folder in the project")
            shutil.rmtree(folder, ignore_errors=True)
    if concurrent:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(2) as pool:
            runs = [pool.submit(_run, argv, copy, side_env, timeout_s)
                    for copy, side_env in ((original, env[0]), (migrated, env[1]))]
            report.original, report.migrated = (run.result() for run in runs)
    else:
        report.original = _run(argv, original, env[0], timeout_s)
    if not report.original.ok:
        report.verdict = "original-failed"
        return
    if not concurrent:
        report.migrated = _run(argv, migrated, env[1], timeout_s)
    if report.migrated.timed_out:
        report.verdict = "timeout"
        return
    if report.migrated.exit_code != 0:
        report.verdict = "migrated-failed"
        return
    tol = report.tolerance
    first, report.stdout_lines, report.different_lines = compare_text(report.original.stdout,
                                                                      report.migrated.stdout, tol)
    if first is not None:
        report.differences.append(Difference("stdout", line=first[0], original=first[1], migrated=first[2]))
    if outputs is not None:
        difference, report.output_files = compare_folders(original / outputs, migrated / outputs, outputs, tol)
        if difference is not None:
            report.differences.append(difference)
    report.verdict = "different" if report.differences else "equal"


def _copy_project(root: Path, dest: Path, skip: Path) -> None:
    """Copy ``root`` to ``dest``: folders discovery skips are left out, as is ``skip`` (the scratch folder
    when it lies inside ``root``); links to folders stay links (outside the project: to the same target),
    links to files become copies."""
    from ..discovery import SKIP_DIRS

    skip = skip.resolve()
    try:
        dest.mkdir(parents=True)
        for current, dirs, files in os.walk(root, followlinks=False):
            here = Path(current)
            target_dir = dest / here.relative_to(root)
            keep = []
            for name in sorted(dirs):
                path = here / name
                if name in SKIP_DIRS or name.startswith(".") or path.resolve() == skip:
                    continue
                if path.is_symlink():
                    _link_folder(path, root, dest, target_dir / name)
                    continue
                (target_dir / name).mkdir()
                keep.append(name)
            dirs[:] = keep
            for name in files:
                path = here / name
                if path.is_symlink() and not path.exists():
                    continue  # a dangling link: nothing to copy
                shutil.copy2(path, target_dir / name, follow_symlinks=True)
    except OSError as e:
        raise ProgramError(f"cannot copy {root} to {dest}: {e}") from None


def _link_folder(path: Path, root: Path, dest: Path, link: Path) -> None:
    target = path.resolve()
    try:
        inside = target.relative_to(root)
        os.symlink(dest / inside, link, target_is_directory=True)  # a folder of the project: its copy
    except ValueError:
        os.symlink(target, link, target_is_directory=True)  # data outside the project: the same data


def _migrate_copy(report: ProgramReport, copy: Path, jobs, paths=None) -> None:
    from ..api import migrate_paths
    from ..config import Config, ConfigError, find_pyproject, load_config

    try:
        found = find_pyproject(copy)
        inside = found is not None and copy.resolve() in found.resolve().parents
        config = load_config(found) if inside else Config(path=copy / "pyproject.toml")
    except ConfigError as e:
        raise ProgramError(str(e)) from None
    # ``paths``: what to migrate, or a list of such lists, migrated one run after the other (a project migrated
    # in parts: the later runs find what the earlier ones wrote, the helper module included).
    runs = [[str(copy / path) for path in run] for run in paths] if paths and isinstance(paths[0], list) else \
        [[str(copy / path) for path in paths] if paths else [str(copy)]]
    for targets in runs:
        for target in targets:
            if not Path(target).resolve().is_relative_to(copy.resolve()) or not Path(target).exists():
                raise ProgramError(f"{_relative(target, copy)}: not a file or folder of the project")
    for targets in runs:
        run = migrate_paths(targets, write=True, jobs=jobs, config=config, progress=False)
        report.migration = run
        report.migration_summary = run.summary()  # (of the last run, which covers the project)
        errors = [f"{_relative(f.path, copy)}: {f.error}" for f in run.errors]
        if errors:
            report.notes.append("the migration left files untouched: " + "; ".join(errors))
        for result in run.files:
            name = _relative(result.path, copy)
            if name in report.migrated_files and not result.changed:
                continue  # migrated by an earlier run: that run's result says what was done
            report.migrated_files[name] = result
            for finding in result.findings:
                entry = {**finding.to_dict(), "path": _relative(finding.path or result.path, copy)}
                if not finding.fixed:
                    report.manual_findings.append(entry)
                if finding.rule in DIFFERENCE_RULES:
                    report.reported_differences.append(entry)
            rules = _MARKER.findall(_code_text(result.migrated, result.path)) if result.migrated else []
            if rules:
                report.text_markers[name] = rules
    report.not_idempotent = sorted({_relative(f.path, copy) for targets in runs for f in migrate_paths(
        targets, write=False, jobs=jobs, config=config, progress=False).files if f.changed})


def _code_text(text: str, path: str) -> str:
    """The text markers are looked for in: a notebook's code cells, or the file."""
    if not path.endswith(".ipynb"):
        return text
    from .run_notebook import code_cells

    try:
        return "\n".join(source for _, source in code_cells(text))
    except ValueError:
        return text


def _relative(path: str, base: Path) -> str:
    try:
        return Path(path).resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return str(path)


def _map_tree_devices(copy: Path, side: str, notes: list[str]) -> list[dict]:
    """Map GPU devices to the CPU in every .py file and notebook code cell of ``copy``."""
    mapped: list[dict] = []
    for current, _dirs, files in os.walk(copy, followlinks=False):
        for name in sorted(files):
            path = Path(current) / name
            if path.suffix not in (".py", ".ipynb") or path.is_symlink():
                continue
            rel = _relative(str(path), copy)
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if not any(word in text for word in ("device", ".gpu(")):
                continue
            if path.suffix == ".py":
                new, found = _map_source(text, side, rel, notes)
            else:
                new, found = _map_notebook(text, side, rel, notes)
            if found and new != text:
                path.write_text(new, encoding="utf-8")
            mapped += found
    return sorted(mapped, key=lambda m: (m["path"], m["line"]))


def _map_source(text: str, side: str, where: str, notes: list[str]) -> tuple[str, list[dict]]:
    import libcst as cst

    try:
        new, mappings = map_devices_to_cpu(text, side)
    except (cst.ParserSyntaxError, RecursionError) as e:
        notes.append(f"{side} {where}: devices not mapped, the file does not parse ({type(e).__name__})")
        return text, []
    return new, [_mapping_dict(m, where) for m in mappings]


def _mapping_dict(m: DeviceMapping, where: str) -> dict:
    return {**m.to_dict(), "path": where}


_MAGIC_PLACEHOLDER = "pass  # dali-migrate-harness-magic-{}"


def _map_notebook(text: str, side: str, where: str, notes: list[str]) -> tuple[str, list[dict]]:
    """The device mapping on each code cell (magic lines masked while it runs, then put back)."""
    from .run_notebook import cell_magic, is_magic_line

    try:
        data = json.loads(text)
        cells = data["cells"]
    except (ValueError, KeyError, TypeError):
        notes.append(f"{side} {where}: devices not mapped, not a notebook")
        return text, []
    mapped: list[dict] = []
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        raw = cell.get("source", "")
        source = "".join(raw) if isinstance(raw, list) else str(raw)
        if cell_magic(source) or not any(word in source for word in ("device", ".gpu(")):
            continue
        lines = source.split("\n")
        masked = {}
        for i, line in enumerate(lines):
            if is_magic_line(line):
                masked[i] = line
                indent = line[: len(line) - len(line.lstrip())]
                lines[i] = indent + _MAGIC_PLACEHOLDER.format(i)
        new, found = _map_source("\n".join(lines), side, f"{where}:cell[{number}]", notes)
        if not found:
            continue
        new_lines = new.split("\n")
        for i, line in enumerate(new_lines):
            for k, original in masked.items():
                if line.strip() == _MAGIC_PLACEHOLDER.format(k):
                    new_lines[i] = original
        new = "\n".join(new_lines)
        cell["source"] = new.splitlines(keepends=True) if isinstance(raw, list) else new
        mapped += found
    return (json.dumps(data, indent=1, ensure_ascii=False) + "\n") if mapped else text, mapped


def _environment(base: dict, root: Path, copy: Path) -> dict:
    """``base`` with PYTHONPATH entries inside ``root`` moved into ``copy``: otherwise both runs would
    import the user's unmigrated modules."""
    env = dict(base)
    if env.get("PYTHONPATH"):
        entries = []
        for entry in env["PYTHONPATH"].split(os.pathsep):
            try:
                inside = Path(entry or ".").resolve().relative_to(root)
                entries.append(str(copy / inside))
            except ValueError:
                entries.append(entry)
        env["PYTHONPATH"] = os.pathsep.join(entries)
    return env


def _run(argv: list[str], cwd: Path, env: dict, timeout_s: float) -> ProgramRun:
    started = time.perf_counter()
    try:
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, start_new_session=True)
    except OSError as e:
        raise ProgramError(f"cannot start {argv[0]!r}: {e.strerror or e}") from None
    try:
        out, err = process.communicate(timeout=timeout_s)
        timed_out = False
    except subprocess.TimeoutExpired:
        _kill_group(process)
        out, err = process.communicate()
        timed_out = True
    finally:
        _kill_group(process)  # what the command left running in its group
    return ProgramRun(exit_code=None if timed_out else process.returncode,
                      stdout=out.decode("utf-8", "replace"), stderr=err.decode("utf-8", "replace"),
                      timed_out=timed_out, seconds=time.perf_counter() - started)


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# -- comparison ----------------------------------------------------------------------------------------------

def _tokens(line: str) -> tuple[list[str], list[str]]:
    """(the text between numbers, the numbers) of one line."""
    texts, numbers, last = [], [], 0
    for match in _NUMBER.finditer(line):
        texts.append(line[last:match.start()])
        numbers.append(match.group())
        last = match.end()
    texts.append(line[last:])
    return texts, numbers


def _numbers_equal(a: str, b: str, tol: Tolerance) -> bool:
    if _INTEGER.fullmatch(a) and _INTEGER.fullmatch(b):
        return int(a) == int(b)
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y):
        return x == y
    return abs(y - x) <= tol.atol + tol.rtol * abs(x)


def lines_equal(original: str, migrated: str, tol: Tolerance) -> bool:
    """Equal text, where numbers are compared as numbers (integers exactly, others within ``tol``)."""
    if original == migrated:
        return True
    texts_a, numbers_a = _tokens(original)
    texts_b, numbers_b = _tokens(migrated)
    return (texts_a == texts_b and len(numbers_a) == len(numbers_b)
            and all(_numbers_equal(a, b, tol) for a, b in zip(numbers_a, numbers_b)))


def compare_text(original: str, migrated: str, tol: Tolerance) -> tuple[tuple[int, str, str] | None, int, int]:
    """(first difference as (line number, original line, migrated line) or None, lines compared,
    lines different). A line one side lacks reads as ``(no line)``."""
    a, b = original.splitlines(), migrated.splitlines()
    first, different = None, 0
    for i in range(max(len(a), len(b))):
        left = a[i] if i < len(a) else None
        right = b[i] if i < len(b) else None
        if left is None or right is None or not lines_equal(left, right, tol):
            different += 1
            if first is None:
                first = (i + 1, "(no line)" if left is None else left, "(no line)" if right is None else right)
    return first, max(len(a), len(b)), different


def compare_folders(original: Path, migrated: Path, label: str, tol: Tolerance) -> tuple[Difference | None, int]:
    """(the first difference between the files under the two folders, or None; files compared)."""
    files_a, files_b = _files_under(original), _files_under(migrated)
    if files_a is None and files_b is None:
        return None, 0
    if files_a is None or files_b is None:
        return Difference("output files", label, detail="the folder was written by one side only",
                          original="(no folder)" if files_a is None else f"{len(files_a)} file(s)",
                          migrated="(no folder)" if files_b is None else f"{len(files_b)} file(s)"), 0
    if files_a != files_b:
        only_a, only_b = sorted(set(files_a) - set(files_b)), sorted(set(files_b) - set(files_a))
        return Difference("output files", label, detail="not the same set of files",
                          original=", ".join(only_a) or "(nothing the migrated run lacks)",
                          migrated=", ".join(only_b) or "(nothing the original run lacks)"), 0
    for rel in files_a:
        difference = compare_file(original / rel, migrated / rel, f"{label}/{rel}", tol)
        if difference is not None:
            return difference, len(files_a)
    return None, len(files_a)


def _files_under(folder: Path) -> list[str] | None:
    if not folder.is_dir():
        return None
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def compare_file(a: Path, b: Path, label: str, tol: Tolerance) -> Difference | None:
    suffix = a.suffix.lower()
    if suffix in (".npy", ".npz"):
        difference = _compare_arrays_file(a, b, label, tol)
        if difference is not False:
            return difference
    data_a, data_b = a.read_bytes(), b.read_bytes()
    if data_a == data_b:
        return None
    text_a, text_b = _as_text(data_a, suffix), _as_text(data_b, suffix)
    if text_a is not None and text_b is not None:
        first, _, _ = compare_text(text_a, text_b, tol)
        if first is None:
            return None
        return Difference("output file", label, line=first[0], original=first[1], migrated=first[2])
    at = next((i for i, (x, y) in enumerate(zip(data_a, data_b)) if x != y), min(len(data_a), len(data_b)))
    return Difference("output file", label, detail=f"bytes differ from offset {at}",
                      original=f"{len(data_a)} bytes", migrated=f"{len(data_b)} bytes")


_BINARY_BYTES = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _as_text(data: bytes, suffix: str) -> str | None:
    """The file as text: a text suffix, or UTF-8 without control characters; None for other files."""
    if suffix not in TEXT_SUFFIXES and _BINARY_BYTES.search(data[:8192]):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _compare_arrays_file(a: Path, b: Path, label: str, tol: Tolerance):
    """The difference between two .npy/.npz files, None when equal, False when they cannot be read as
    plain arrays (then they are compared as bytes)."""
    import numpy as np

    try:
        with np.load(a, allow_pickle=False) as left_file, np.load(b, allow_pickle=False) as right_file:
            left, right = _arrays(left_file), _arrays(right_file)
    except (ValueError, OSError, AttributeError, TypeError):
        try:  # a .npy file is not a context manager in every numpy
            left, right = _arrays(np.load(a, allow_pickle=False)), _arrays(np.load(b, allow_pickle=False))
        except (ValueError, OSError):
            return False
    if sorted(left) != sorted(right):
        return Difference("output file", label, detail="not the same arrays",
                          original=", ".join(sorted(left)), migrated=", ".join(sorted(right)))
    for key in sorted(left):
        where = label + (f"[{key}]" if key else "")
        message = _array_difference(left[key], right[key], tol)
        if message:
            return Difference("output file", where, detail=message[0], original=message[1], migrated=message[2])
    return None


def _arrays(loaded) -> dict:
    import numpy as np

    if isinstance(loaded, np.ndarray):
        return {"": np.array(loaded)}
    return {key: np.array(loaded[key]) for key in loaded.files}


def _array_difference(x, y, tol: Tolerance) -> tuple[str, str, str] | None:
    import numpy as np

    if x.shape != y.shape:
        return "shape differs", str(x.shape), str(y.shape)
    if x.dtype != y.dtype:
        return "dtype differs", str(x.dtype), str(y.dtype)
    if np.issubdtype(x.dtype, np.floating) or np.issubdtype(x.dtype, np.complexfloating):
        bad = ~np.isclose(y, x, atol=tol.atol, rtol=tol.rtol, equal_nan=True)
    else:
        bad = x != y
    bad = np.atleast_1d(bad)
    if not bad.any():
        return None
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    index = first if x.ndim else ()
    return (f"{int(bad.sum())} of {max(x.size, 1)} elements differ; first at index {first}",
            repr(x[index].tolist()), repr(y[index].tolist()))
