"""DALI's own Python tests, run before and after dali-migrate, compared per test (issue 32).

    python benchmarks/dali_suite/run.py [--dali DIR | --dali-repo GITDIR [--commit C]]
                                        [--migrated DIR | --tool CHECKOUT] [--work DIR] [--timeout S]
                                        [--discover] [--only FILE]... [--smoke]
                                        [--json OUT] [--regressions OUT] [--markdown OUT] [--readme]

1. **The tree.** ``--dali DIR``: a checkout of NVIDIA DALI (default ``/work/dali-src``, the fork
   jantonguirao/DALI at 96915c35), or ``--dali-repo GITDIR --commit C``: any git repository, bare or
   not, read with ``git ls-tree``/``cat-file`` (a size-limited mirror may lack large blobs; the test
   folder has none). Only ``dali/test/python`` is used. Nothing of DALI is stored in this project.
2. **Two copies** of ``dali/test/python`` under ``--work``: ``original/`` and ``migrated/``. The
   migrated one is a copy of ``--migrated DIR`` (an already migrated tree: its ``dali/test/python``, or
   the folder itself) or, without it, a fresh ``python -m dali_migrate migrate --write --json -j 2`` of
   the copy (this checkout's dali_migrate; minutes).
3. **The selection** (``selection.json`` beside this file): the test files the tool changed that run on
   the CPU without DALI_extra or another framework (no torch/TF/JAX/cupy/numba/... import) and have at
   least one test passing before migration. ``--discover`` recomputes it: it runs the original of every
   changed candidate and rewrites ``selection.json``.
4. **The runner** per file, chosen by reading the original: ``nose2`` where a ``test_*`` function yields
   (nose-style generator cases) or a test is decorated with nose2's ``params``/``cartesian_params``
   (pytest cannot run either: "'yield' keyword is allowed in fixtures", "fixture 'x' not found"); pytest
   for the rest. The same command in both copies, from ``dali/test/python`` (the tests import
   ``test_utils``/``nose_utils`` from there), one file at a time, ``nice -n 10``,
   ``DALI_NUM_THREADS=2``, without ``DALI_EXTRA_PATH``, a time limit per file (``--timeout``); results
   stream into a file per test (``reporters/``), so a file killed at its limit keeps what finished.
5. **The CPU start-up patch** (``cpu_patch/sitecustomize.py``, first on PYTHONPATH of both copies):
   ``device_id >= 0`` given to a ``Pipeline``/``pipeline_def`` becomes None without a GPU, and
   ``ndd.Device("gpu", k)`` is an inert context. ``nose`` 1.3.7 (``nose_utils`` imports it) must be
   importable: the ``dali-suite`` extra installs it, or ``--nose-lib DIR`` names a ``pip install
   --target`` folder.
6. **The comparison** per test id: passed before and after, regressions (passed before, not after),
   silent regressions (in a file without a ``# dali-migrate: DMnnn`` marker, in itself and in the test
   tree's modules it imports), newly passing. A table per file and a tally; ``--json`` writes
   everything, ``--regressions`` every regression with the first error line after migration,
   ``--readme`` rewrites the result section of README.md beside this file.

The "before" results are cached in ``--work`` (keyed by the original file, the test tree's helper
modules, the patch, the reporters and the DALI version), so a rerun redoes only "after".
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TESTS = "dali/test/python"
PATCH_DIR = HERE / "cpu_patch"
REPORTERS_DIR = HERE / "reporters"
SELECTION = HERE / "selection.json"
SMOKE = HERE / "smoke.json"
README = HERE / "README.md"
DEFAULT_DALI = "/work/dali-src"
DEFAULT_COMMIT = "96915c35"
MARKER = re.compile(r"#\s*dali-migrate:\s*(DM\d+)")
# another framework than DALI (and numpy/scipy/PIL): a file importing one is not in the selection
FRAMEWORKS = ("torch", "torchvision", "tensorflow", "jax", "flax", "cupy", "numba", "mxnet", "paddle",
              "nvidia.dali.plugin.pytorch", "nvidia.dali.plugin.tf", "nvidia.dali.plugin.jax",
              "nvidia.dali.plugin.mxnet", "nvidia.dali.plugin.paddle", "nvidia.dali.plugin.numba",
              "nvidia.dali.plugin.triton")
DALI_EXTRA = re.compile(r"dali_extra|DALI_EXTRA", re.IGNORECASE)  # get_dali_extra_path(), DALI_EXTRA_PATH
NOSE2_DECORATORS = {"params", "cartesian_params"}
# The same in both copies. PYTHONHASHSEED: nose2 names a generator's cases by position, and tests that yield
# from a set (test_lookup_table: ``for device in {"cpu", "gpu"}``) yield in an order that depends on the hash
# seed, so without a fixed seed the same case has another id in the other run.
RUN_ENV = {"DALI_NUM_THREADS": "2", "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg",
           "PYTHONWARNINGS": "ignore"}
RESULTS_BEGIN = "<!-- dali_suite results begin -->"
RESULTS_END = "<!-- dali_suite results end -->"


# -- the tree --------------------------------------------------------------------------------------

def materialise(repo: Path, commit: str, dest: Path) -> list[str]:
    """Write ``dali/test/python`` of ``commit`` in the git repository ``repo`` under ``dest``; returns the
    paths whose blobs the repository lacks (a size-limited mirror)."""
    git_dir = repo / ".git" if (repo / ".git").exists() else repo
    git = ["git", "--git-dir", str(git_dir)]
    listing = subprocess.run(git + ["ls-tree", "-r", "-z", commit, "--", TESTS], check=True,
                             capture_output=True).stdout.decode().split("\0")
    missing = []
    for entry in filter(None, listing):
        meta, path = entry.split("\t", 1)
        mode, kind, blob = meta.split()
        if kind != "blob":
            continue
        shown = subprocess.run(git + ["cat-file", "blob", blob], capture_output=True)
        if shown.returncode:
            missing.append(path)
            continue
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == "120000":
            target.symlink_to(shown.stdout.decode())
        else:
            target.write_bytes(shown.stdout)
    return missing


def tests_dir(tree: Path) -> Path:
    """The ``dali/test/python`` of a tree, or the folder itself when it is one."""
    return tree / TESTS if (tree / TESTS).is_dir() else tree


def copy_tests(source: Path, dest: Path) -> Path:
    target = dest / TESTS
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(tests_dir(source), target, symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    return target


def migrate(tests: Path, log: Path, files: list[str] | None = None, tool: Path = ROOT) -> None:
    """``dali-migrate migrate --write`` over the copy (all of it, or only ``files``), by the dali_migrate of the
    checkout ``tool``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tool), os.environ.get("PYTHONPATH", "")]))
    paths = [str(tests / rel) for rel in files] if files else [str(tests)]
    with open(log, "w") as out:
        subprocess.run(["nice", "-n", "10", sys.executable, "-m", "dali_migrate", "migrate", "--write", "--json",
                        "-j", "2", *paths], env=env, stdout=out, stderr=subprocess.STDOUT, check=False,
                       cwd=tool)  # python -m puts the working folder first on sys.path, before PYTHONPATH


# -- reading the test files ------------------------------------------------------------------------

def _decorator_name(node: ast.expr) -> str:
    while isinstance(node, ast.Call):
        node = node.func
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def _yields(function: ast.FunctionDef) -> bool:
    """A yield in the function's own body (not in a nested function or class)."""
    stack = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def runner_for(source: str) -> str:
    """nose2 for nose-style generator tests and nose2's parameterised tests, pytest for the rest."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            if _yields(node) or any(_decorator_name(d) in NOSE2_DECORATORS for d in node.decorator_list):
                return "nose2"
    return "pytest"


def imported_modules(source: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def framework_of(source: str) -> str | None:
    for name in sorted(imported_modules(source)):
        for framework in FRAMEWORKS:
            if name == framework or name.startswith(framework + "."):
                return framework
    return None


def local_import_names(path: Path, root: Path) -> dict[Path, set[str] | None]:
    """The test tree's modules that ``path`` imports (resolved as the tests resolve them: from
    ``dali/test/python``, from the file's folder, or relative to its package), each with the names the file
    takes from it (``from m import a, b``), or None where it takes the module itself (``import m``, ``*``)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError):
        return {}

    def resolve(name: str, bases: list[Path]) -> Path | None:
        for base in bases:
            stem = base / name.replace(".", "/")
            for target in (stem.with_suffix(".py"), stem / "__init__.py"):
                if target.is_file() and target != path:
                    return target
        return None

    found: dict[Path, set[str] | None] = {}

    def take(module: Path, names: set[str] | None) -> None:
        if names is None or (module in found and found[module] is None):
            found[module] = None
        else:
            found[module] = found.get(module, set()) | names

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                module = resolve(alias.name, [root, path.parent])
                if module:
                    take(module, None)
        elif isinstance(node, ast.ImportFrom):
            base = path.parent
            for _ in range(max(node.level - 1, 0)):
                base = base.parent
            bases = [base] if node.level else [root, path.parent]
            prefix = f"{node.module}." if node.module else ""
            module = resolve(node.module, bases) if node.module else None
            for alias in node.names:
                submodule = resolve(prefix + alias.name, bases)
                if submodule:
                    take(submodule, None)
                elif module:
                    take(module, None if alias.name == "*" else {alias.name})
    return found


def local_imports(path: Path, root: Path) -> list[Path]:
    return sorted(local_import_names(path, root))


def markers_in(path: Path, names: set[str] | None = None) -> list[str]:
    """The markers of a module, or only those in the top-level definitions of ``names`` (with the comment
    lines above each: a marker is written on the lines before the statement it is about)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    if names is None:
        return sorted(set(MARKER.findall(text)))
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return sorted(set(MARKER.findall(text)))
    lines = text.splitlines()
    found, previous_end = set(), 0
    for statement in tree.body:
        defined = set()
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(statement.name)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            defined.update(t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name))
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            defined.update((alias.asname or alias.name).split(".")[0] for alias in statement.names)
        if defined & names:
            found.update(MARKER.findall("\n".join(lines[previous_end:statement.end_lineno])))
        previous_end = statement.end_lineno
    return sorted(found)


# -- running one file ------------------------------------------------------------------------------

@dataclass
class FileRun:
    results: dict = field(default_factory=dict)  # test id -> {"outcome", "error"?}
    returncode: int | None = None
    seconds: float = 0.0
    timed_out: bool = False
    output_tail: str = ""  # the last lines of stdout/stderr when the run recorded no test


def run_file(tests: Path, rel: str, runner: str, timeout: float, python_path: list[str], scratch: Path) -> FileRun:
    handle, name = tempfile.mkstemp(suffix=".jsonl", dir=scratch)  # one per run: two runs may share --work
    os.close(handle)
    results_file = Path(name)
    env = {key: value for key, value in os.environ.items() if key not in ("DALI_EXTRA_PATH", "PYTHONPATH")}
    env.update(RUN_ENV, PYTHONPATH=os.pathsep.join(python_path + [str(tests)]), DALI_SUITE_RESULTS=str(results_file))
    if runner == "nose2":
        folder, module = os.path.split(rel)
        command = [sys.executable, "-m", "nose2", "--plugin", "dali_suite_nose2", "-s", folder or ".",
                   "-t", folder or ".", module[:-3]]
    else:
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "dali_suite_pytest",
                   "--rootdir", str(tests), rel]
    run = FileRun()
    start = time.monotonic()
    with tempfile.TemporaryFile() as output:
        process = subprocess.Popen(["nice", "-n", "10"] + command, cwd=tests, env=env, stdout=output,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            run.returncode = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            run.timed_out = True
        finally:  # the test's own children too (python workers of parallel external sources)
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait()
        run.seconds = round(time.monotonic() - start, 1)
        if results_file.exists():
            for line in results_file.read_text(encoding="utf-8").splitlines():
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:  # the last line of a killed run
                    continue
                run.results[entry.pop("id")] = entry
            results_file.unlink()
        if not run.results or run.timed_out:
            output.seek(0)
            run.output_tail = "\n".join(output.read().decode(errors="replace").splitlines()[-15:])
    return run


def why_nothing_passes(run: FileRun) -> str:
    errors = Counter(entry.get("error", entry["outcome"]) for entry in run.results.values())
    if errors:
        error, count = errors.most_common(1)[0]
        late = f", then ran out of time ({run.seconds:.0f} s)" if run.timed_out else ""
        return f" ({len(run.results)} tests{late}; {count}: {error[:200]})"
    return f" (no test ran: {run.output_tail.splitlines()[-1][:200]})" if run.output_tail else " (no test ran)"


def passed(run: FileRun | None) -> set[str]:
    return {test for test, entry in (run.results if run else {}).items() if entry["outcome"] == "passed"}


# -- the cache of "before" ---------------------------------------------------------------------------

def _digest(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()[:20]


def environment_key(python_path: list[str]) -> str:
    """What the results of a file depend on besides the file: the patch, the reporters, DALI's version."""
    version = subprocess.run([sys.executable, "-c", "import nvidia.dali as d; print(d.__version__)"],
                             capture_output=True, text=True).stdout.strip()
    tools = sorted(p for folder in (PATCH_DIR, REPORTERS_DIR) for p in folder.glob("*.py"))
    return _digest(version.encode(), sys.version.encode(), json.dumps(RUN_ENV, sort_keys=True).encode(),
                   *(p.read_bytes() for p in tools))


def file_key(tests: Path, rel: str, runner: str, env_key: str) -> str:
    path = tests / rel
    helpers = local_imports(path, tests)
    return _digest(env_key.encode(), runner.encode(), timeout_key.encode(), path.read_bytes(),
                   *(h.read_bytes() for h in helpers))


timeout_key = ""  # set from --timeout: a longer limit may let more tests finish


class Cache:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries = json.loads(path.read_text()) if path.exists() else {}

    def get(self, rel: str, key: str) -> FileRun | None:
        entry = self.entries.get(rel)
        if entry and entry["key"] == key:
            return FileRun(**entry["run"])
        return None

    def put(self, rel: str, key: str, run: FileRun) -> None:
        self.entries[rel] = {"key": key, "run": asdict(run)}
        self.path.write_text(json.dumps(self.entries, indent=0, sort_keys=True))


# -- the comparison ----------------------------------------------------------------------------------

@dataclass
class FileResult:
    file: str
    runner: str
    changed: bool = True
    markers: list = field(default_factory=list)  # markers in the migrated file
    # imported test-tree module -> the markers in the definitions the file takes from it (all, for ``import m``)
    helper_markers: dict = field(default_factory=dict)
    tests_before: int = 0
    passed_before: int = 0
    passed_after: int = 0
    regressions: list = field(default_factory=list)  # {"test", "outcome", "error"}
    newly_passing: list = field(default_factory=list)
    seconds_before: float = 0.0
    seconds_after: float = 0.0
    timed_out_before: bool = False
    timed_out_after: bool = False
    note: str = ""  # the output's tail when a side recorded no test

    @property
    def marked(self) -> bool:
        return bool(self.markers or self.helper_markers)


def compare(rel: str, runner: str, before: FileRun, after: FileRun, original: Path, migrated: Path) -> FileResult:
    result = FileResult(rel, runner)
    path = migrated / rel
    result.changed = (original / rel).read_bytes() != path.read_bytes()
    result.markers = markers_in(path)
    for helper, names in local_import_names(path, migrated).items():
        found = markers_in(helper, names)
        if found:
            result.helper_markers[str(helper.relative_to(migrated))] = found
    was, now = passed(before), passed(after)
    result.tests_before = len(before.results)
    result.passed_before, result.passed_after = len(was), len(now)
    for test in sorted(was - now):
        entry = after.results.get(test) or {
            "outcome": "not reached",
            "error": f"not reached: the file ran out of time ({after.seconds:.0f} s)" if after.timed_out else
            "not reached: the run stopped before it" if after.results else "no test ran (" + (
                after.output_tail.splitlines()[-1][:200] if after.output_tail else "no output") + ")"}
        result.regressions.append({"test": test, "outcome": entry["outcome"], "error": entry.get("error", ""),
                                   **({"args": before.results[test]["args"]} if "args" in before.results[test] else {})})
    result.newly_passing = sorted(now - was)
    result.seconds_before, result.seconds_after = before.seconds, after.seconds
    result.timed_out_before, result.timed_out_after = before.timed_out, after.timed_out
    if not after.results and after.output_tail:
        result.note = after.output_tail.splitlines()[-1][:300]
    return result


def normalise(error: str) -> str:
    """An error line with addresses and long numbers taken out, to count distinct causes."""
    return re.sub(r"0x[0-9a-f]+", "0x…", error)


def tally(results: list[FileResult]) -> dict:
    with_pass = [r for r in results if r.passed_before]
    before = sum(r.passed_before for r in results)
    kept = sum(r.passed_before - len(r.regressions) for r in results)
    regressions = sum(len(r.regressions) for r in results)
    silent = [r for r in results if r.regressions and not r.marked]
    unmarked = [r for r in with_pass if not r.marked]
    in_unmarked_files = [r for r in results if r.regressions and not r.markers]
    return {
        "files": len(results),
        "files_with_a_passing_test_before": len(with_pass),
        "tests_before": sum(r.tests_before for r in results),
        "passed_before": before,
        "passed_after": sum(r.passed_after for r in results),
        "regressions": regressions,
        "files_with_regressions": sum(1 for r in results if r.regressions),
        "kept_fraction": round(kept / before, 4) if before else None,
        "silent_regressions": sum(len(r.regressions) for r in silent),
        "files_with_silent_regressions": len(silent),
        "files_without_marker": len(unmarked),
        # the same, counting only the file's own markers (a marker in a helper it imports does not count)
        "regressions_in_files_without_own_marker": sum(len(r.regressions) for r in in_unmarked_files),
        "files_with_regressions_without_own_marker": len(in_unmarked_files),
        "files_without_own_marker": sum(1 for r in with_pass if not r.markers),
        "newly_passing": sum(len(r.newly_passing) for r in results),
        "timed_out_before": [r.file for r in results if r.timed_out_before],
        "timed_out_after": [r.file for r in results if r.timed_out_after],
    }


def markdown(results: list[FileResult], summary: dict, header: str) -> str:
    lines = [header, "",
             "| | |", "|---|---:|",
             f"| test files run (changed by the tool, CPU, no DALI_extra / other framework) | {summary['files']} |",
             f"| of them with at least one test passing before migration | "
             f"{summary['files_with_a_passing_test_before']} |",
             f"| tests passing before | {summary['passed_before']:,} |",
             f"| tests passing after | {summary['passed_after']:,} |",
             f"| **regressions** (passed before, not after) | **{summary['regressions']:,}**, in "
             f"{summary['files_with_regressions']} files |",
             f"| of them **silent** (no marker in the file, nor in the definitions it imports from the test tree) | "
             f"**{summary['silent_regressions']:,}**, in {summary['files_with_silent_regressions']} of the "
             f"{summary['files_without_marker']} files without a marker |",
             f"| of them in files without a marker of their own (imported helpers may have some) | "
             f"{summary['regressions_in_files_without_own_marker']:,}, in "
             f"{summary['files_with_regressions_without_own_marker']} of the {summary['files_without_own_marker']} "
             f"such files |",
             f"| tests that passed before and still pass | "
             f"{100 * (summary['kept_fraction'] or 0):.2f} % |",
             f"| newly passing (failed before, pass after) | {summary['newly_passing']} |", ""]
    if summary["timed_out_before"] or summary["timed_out_after"]:
        lines += [f"Ran out of time: before {', '.join(summary['timed_out_before']) or 'none'}; after "
                  f"{', '.join(summary['timed_out_after']) or 'none'}.", ""]
    lines += ["Markers: the file's own; those in the definitions it imports from the test tree. **silent**: neither.",
              "",
              "| file | runner | markers (file; imported) | passed before | after | regressions | newly passing "
              "| s before/after |", "|---|---|---|---:|---:|---:|---:|---:|"]
    for r in sorted(results, key=lambda r: (-len(r.regressions), r.file)):
        own = ",".join(r.markers) or "–"
        helpers = ",".join(sorted({m for found in r.helper_markers.values() for m in found})) or "–"
        silent = " **silent**" if r.regressions and not r.marked else ""
        lines.append(f"| {r.file} | {r.runner} | {own}; {helpers} | {r.passed_before} | {r.passed_after} | "
                     f"{len(r.regressions)}{silent} | {len(r.newly_passing)} | "
                     f"{r.seconds_before:.0f}{'⏱' if r.timed_out_before else ''}/"
                     f"{r.seconds_after:.0f}{'⏱' if r.timed_out_after else ''} |")
    return "\n".join(lines) + "\n"


def regressions_markdown(results: list[FileResult], summary: dict, header: str) -> str:
    lines = [header, "", f"{summary['regressions']:,} regressions in {summary['files_with_regressions']} files "
             f"({summary['silent_regressions']} silent, in {summary['files_with_silent_regressions']} files: no marker "
             f"in the file nor in the definitions it imports from the test tree; "
             f"{summary['regressions_in_files_without_own_marker']} in "
             f"{summary['files_with_regressions_without_own_marker']} files without a marker of their own); "
             f"{summary['passed_before']:,} passed before, {summary['passed_after']:,} after. Per file: the distinct "
             f"first error lines after migration (the first exception of the traceback), with counts and one test "
             f"(nose2 generator case `test:k` = the k-th case it yields; its arguments in the JSON).", ""]
    for r in sorted(results, key=lambda r: (-len(r.regressions), r.file)):
        if not r.regressions:
            continue
        where = []
        if r.markers:
            where.append("file: " + ", ".join(r.markers))
        for helper, found in r.helper_markers.items():
            where.append(f"{helper}: {', '.join(found)}")
        own = "" if r.markers or not where else " (**none in the file itself**)"
        lines += [f"## {r.file}: {len(r.regressions)} of {r.passed_before} ({r.runner})",
                  f"markers: {'; '.join(where) + own if where else '**none (silent)**'}", ""]
        for error, count in Counter(normalise(g["error"]) or g["outcome"] for g in r.regressions).most_common():
            example = next(g["test"] for g in r.regressions if (normalise(g["error"]) or g["outcome"]) == error)
            lines.append(f"- {count} × `{error}` (e.g. `{example}`)")
        lines.append("")
    return "\n".join(lines)


# -- the steps ----------------------------------------------------------------------------------------

def changed_files(original: Path, migrated: Path) -> list[str]:
    changed = []
    for path in sorted(original.rglob("test_*.py")):
        rel = str(path.relative_to(original))
        other = migrated / rel
        if other.is_file() and other.read_bytes() != path.read_bytes():
            changed.append(rel)
    return changed


def load_selection(path: Path) -> list[dict]:
    return json.loads(path.read_text())["files"]


def main(argv=None) -> int:
    global timeout_key
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dali", type=Path, default=None, help=f"a DALI checkout (default {DEFAULT_DALI})")
    parser.add_argument("--dali-repo", type=Path, help="a DALI git repository (bare or not), read at --commit")
    parser.add_argument("--commit", default=DEFAULT_COMMIT)
    parser.add_argument("--migrated", type=Path, help="an already migrated copy of the tree (else: migrate now)")
    parser.add_argument("--tool", type=Path, default=ROOT,
                        help="the dali-migrate checkout that migrates (default: this one)")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "dali_suite",
                        help="copies, logs and the cache of 'before' results")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per file and side")
    parser.add_argument("--discover", action="store_true",
                        help="recompute the selection: run the original of every changed CPU candidate")
    parser.add_argument("--only", action="append", default=[], help="a file of the selection (repeatable)")
    parser.add_argument("--smoke", action="store_true", help="the smoke subset (smoke.json) only")
    parser.add_argument("--nose-lib", type=Path, help="a folder holding the nose package (pip install --target)")
    parser.add_argument("--json", type=Path, help="write everything here")
    parser.add_argument("--regressions", type=Path, help="write the regressions here (.json and .md beside)")
    parser.add_argument("--readme", action="store_true", help="rewrite the result section of README.md")
    parser.add_argument("--from-json", type=Path, help="run nothing: report again from a --json of an earlier run "
                        "(markers read again from --work/migrated when it is there)")
    args = parser.parse_args(argv)
    if args.from_json:
        return report_again(args)
    timeout_key = str(args.timeout)

    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    python_path = [str(PATCH_DIR), str(REPORTERS_DIR)] + ([str(args.nose_lib.resolve())] if args.nose_lib else [])
    probe = subprocess.run([sys.executable, "-c", "import nose, nose2"], capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=os.pathsep.join(python_path)))
    if probe.returncode:
        print("DALI's nose_utils needs `nose` (1.3.7) and the runner `nose2`: pip install 'dali-migrate[dali-suite]'"
              " or pip install --target DIR nose==1.3.7 and pass --nose-lib DIR\n" + probe.stderr.strip(),
              file=sys.stderr)
        return 2

    # 1-2. the copies
    if args.dali_repo:
        source = work / "source"
        if source.exists():
            shutil.rmtree(source)
        missing = materialise(args.dali_repo, args.commit, source)
        if missing:
            print(f"{len(missing)} files missing from the repository (blobs not stored): {missing[:5]}")
    else:
        source = args.dali or Path(DEFAULT_DALI)
    original = copy_tests(source, work / "original")
    if args.migrated:
        migrated = copy_tests(args.migrated, work / "migrated")
        migration = f"the migrated tree {args.migrated}"
    else:
        migrated = copy_tests(source, work / "migrated")
        started = time.monotonic()
        files = None
        if args.smoke or args.only:  # those files and the test tree's modules they import, not the whole tree
            files = [e["file"] for e in load_selection(SMOKE)] if args.smoke else list(args.only)
            files += sorted({str(h.relative_to(migrated)) for rel in files
                             for h in local_imports(migrated / rel, migrated)} - set(files))
        print(f"migrating {migrated if files is None else ', '.join(files)} (log: {work / 'migrate.json'}) ...",
              flush=True)
        migrate(migrated, work / "migrate.json", files, args.tool)
        migration = (f"a fresh migration by dali-migrate at {git_head(args.tool)}"
                     f"{' of ' + ', '.join(files) if files else ''} ({time.monotonic() - started:.0f} s)")
    print(f"original: {original}\nmigrated: {migrated} ({migration})", flush=True)

    env_key = environment_key(python_path)
    cache = Cache(work / "before-cache.json")
    scratch = work / "scratch"
    scratch.mkdir(exist_ok=True)

    def before_of(rel: str, runner: str) -> FileRun:
        key = file_key(original, rel, runner, env_key)
        run = cache.get(rel, key)
        if run is None:
            run = run_file(original, rel, runner, args.timeout, python_path, scratch)
            cache.put(rel, key, run)
        return run

    # 3. the selection
    changed = changed_files(original, migrated)
    if args.discover:
        candidates, left_out = [], {}
        for rel in changed:
            source_text = (original / rel).read_text(encoding="utf-8")
            framework = framework_of(source_text)
            if framework:
                left_out[rel] = f"imports {framework}"
            elif DALI_EXTRA.search(source_text):
                left_out[rel] = "reads DALI_extra"
            else:
                candidates.append({"file": rel, "runner": runner_for(source_text)})
        selection = []
        for number, entry in enumerate(candidates, 1):
            run = before_of(entry["file"], entry["runner"])
            print(f"[{number}/{len(candidates)}] {entry['file']} ({entry['runner']}): {len(passed(run))} of "
                  f"{len(run.results)} pass before{' (ran out of time)' if run.timed_out else ''}", flush=True)
            if passed(run):
                selection.append(entry)
            else:
                left_out[entry["file"]] = "no test passes before migration" + why_nothing_passes(run)
        SELECTION.write_text(json.dumps({
            "about": "DALI test files (under dali/test/python) changed by dali-migrate that run on the CPU without "
                     "DALI_extra or another framework and have a test passing before migration; written by "
                     "run.py --discover",
            "changed_files": len(changed), "candidates": len(candidates), "files": selection,
            "left_out": left_out}, indent=1) + "\n")
        print(f"selection: {len(selection)} of {len(candidates)} candidates ({len(changed)} changed test files)")
    selection = load_selection(SMOKE if args.smoke else SELECTION)
    if args.only:  # a file outside the selection too, its runner read from it
        runners = {entry["file"]: entry["runner"] for entry in selection}
        selection = [{"file": rel, "runner": runners.get(rel) or runner_for((original / rel).read_text(encoding="utf-8"))}
                     for rel in args.only]
    unchanged_now = [e["file"] for e in selection if e["file"] not in changed]
    if unchanged_now:
        print(f"{len(unchanged_now)} selected files are no longer changed by the tool (compared anyway): "
              f"{', '.join(unchanged_now)}")

    # 4-6. both sides, compared
    results = []
    header = (f"Measured {time.strftime('%Y-%m-%d %H:%M')}; migrated: {migration}; timeout {args.timeout:.0f} s per "
              f"file; runner, patch and selection: benchmarks/dali_suite at {git_head()}.")
    for number, entry in enumerate(selection, 1):
        rel, runner = entry["file"], entry["runner"]
        before = before_of(rel, runner)
        after = run_file(migrated, rel, runner, args.timeout, python_path, scratch)
        result = compare(rel, runner, before, after, original, migrated)
        results.append(result)
        print(f"[{number}/{len(selection)}] {rel} ({runner}): passed {result.passed_before} -> "
              f"{result.passed_after}, {len(result.regressions)} regressions"
              f"{' SILENT' if result.regressions and not result.marked else ''}, {len(result.newly_passing)} new"
              f"{' (after ran out of time)' if after.timed_out else ''}{' — ' + result.note if result.note else ''}",
              flush=True)
        if number < len(selection):  # the results so far, for whoever reads them while the run goes on
            write_outputs(args, results, migration, header + f" IN PROGRESS: {number} of {len(selection)} files.",
                          readme=False, quiet=True)
    write_outputs(args, results, migration, header)
    return 0


def write_outputs(args, results: list[FileResult], migration: str, header: str, readme: bool = True,
                  quiet: bool = False) -> None:
    summary = tally(results)
    table = markdown(results, summary, header)
    if not quiet:
        print("\n" + table)
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "migration": migration, "header": header,
                                         "files": [asdict(r) for r in results]}, indent=1))
    if args.regressions:
        out = args.regressions.with_suffix(".json")
        out.write_text(json.dumps({"summary": summary, "migration": migration, "regressions": [
            {"file": r.file, **g, "file_markers": r.markers, "helper_markers": r.helper_markers}
            for r in results for g in r.regressions]}, indent=1))
        args.regressions.with_suffix(".md").write_text(regressions_markdown(results, summary, "# Regressions\n\n" +
                                                                            header))
    if readme and args.readme and not (args.only or args.smoke):
        text = README.read_text()
        begin, end = text.index(RESULTS_BEGIN) + len(RESULTS_BEGIN), text.index(RESULTS_END)
        README.write_text(text[:begin] + "\n" + table + text[end:])


def report_again(args) -> int:
    saved = json.loads(args.from_json.read_text())
    results = [FileResult(**entry) for entry in saved["files"]]
    migrated = args.work.resolve() / "migrated" / TESTS
    if migrated.is_dir():
        for result in results:
            path = migrated / result.file
            result.markers = markers_in(path)
            result.helper_markers = {str(h.relative_to(migrated)): found
                                     for h, names in local_import_names(path, migrated).items()
                                     if (found := markers_in(h, names))}
    header = saved.get("header") or f"Reported again from {args.from_json}; migrated: {saved['migration']}."
    write_outputs(args, results, saved["migration"], header)
    return 0


def git_head(checkout: Path = ROOT) -> str:
    head = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(checkout), "status", "--porcelain", "--", "dali_migrate", "benchmarks"],
                           capture_output=True, text=True).stdout.strip()
    where = "" if Path(checkout).resolve() == ROOT else f" of {checkout}"
    return (head.stdout.strip() or "?") + where + (" (with uncommitted changes)" if dirty else "")


if __name__ == "__main__":
    sys.exit(main())
