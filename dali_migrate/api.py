"""The public Python API. The CLI and the MCP server are thin layers over these functions."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .engine import MigrationResult, migrate_source
from .files import SourceError, atomic_write, decode_source, module_name_of, read_bytes
from .findings import Finding
from .project import Project, across_modules, said_elsewhere, scan_classes, scan_source

from .exit_codes import EXIT_CLEAN, EXIT_ERROR, EXIT_PENDING  # noqa: F401  (the commands' contract, api.EXIT_*)


@dataclass
class RunResult:
    files: list[MigrationResult] = field(default_factory=list)
    written: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[MigrationResult]:
        return [f for f in self.files if f.error]

    def exit_code(self, wrote: bool = False) -> int:
        if self.errors:
            return EXIT_ERROR
        if any(f.manual for f in self.files):
            return EXIT_PENDING
        if not wrote and any(f.changed for f in self.files):
            return EXIT_PENDING
        return EXIT_CLEAN

    def summary(self) -> dict:
        statuses: dict[str, int] = {}
        for f in self.files:
            statuses[f.status] = statuses.get(f.status, 0) + 1
        return {
            "files": len(self.files),
            "changed": sum(f.changed for f in self.files),
            "written": len(self.written),
            "errors": len(self.errors),
            "manual_findings": sum(len(f.manual) for f in self.files),
            "statuses": dict(sorted(statuses.items())),
        }


def migrate_file(path: Path, display: str | None = None, project=None) -> MigrationResult:
    name = display or str(path)
    try:
        data = read_bytes(str(path))
        from .transforms.unroll.helpers import is_helper_module

        if is_helper_module(data):  # the helper module a migration wrote: not user code, never migrated
            return MigrationResult(path=name, original="", migrated="")
        if _says_dali(data) is None and not (project and project.mentioned_in_bytes(data)):
            # Cannot use DALI in any encoding we would touch: skip without decoding, so a
            # Latin-1 file elsewhere in a repository is not an error.
            return MigrationResult(path=name, original="", migrated="")
        source = decode_source(data)
    except (SourceError, OSError) as e:
        return _unreadable(name, e)
    return _migrate_text(source, name, Path(path).suffix, project)


def missing_file(name: str) -> MigrationResult:
    """The result for a named file that does not exist (DM001, nothing migrated)."""
    result = MigrationResult(path=name, original="", migrated="")
    result.error = "no such file or directory"
    result.findings = [Finding(rule="DM001", message=result.error, path=name, fixed=False)]
    return result


def _read_error(name: str, e: OSError) -> MigrationResult:
    return missing_file(name) if isinstance(e, FileNotFoundError) else _unreadable(name, e)


def _unreadable(name: str, e: Exception) -> MigrationResult:
    result = MigrationResult(path=name, original="", migrated="")
    reason = str(e) if isinstance(e, SourceError) else f"cannot read: {e.strerror or e}"
    result.error = reason
    line = e.line if isinstance(e, SourceError) else 0
    result.findings = [Finding(rule="DM001", message=reason, path=name, line=line, fixed=False)]
    return result


def _migrate_text(source: str, name: str, suffix: str, project=None, helper_module=None) -> MigrationResult:
    if suffix == ".ipynb":  # notebooks: code cells joined, migrated, split back (notebooks.py)
        from .notebooks import migrate_notebook

        return migrate_notebook(source, name, helper_module=helper_module)
    return migrate_source(source, name, project=project, helper_module=helper_module)


# -- many files: discovery, the cheap text check, a process pool (issue 8) ------------------------

# ``b"dali" in data``, a third faster (CPython 3.11, the standard library's 31 MB: 17 ms against 24):
# sre scans for the "d" in a tight loop, where bytes.__contains__ pays a branchy skip per step. A
# scan of a tree without DALI spends as long in this check as in reading the files.
_says_dali = re.compile(b"dali").search

# The words of a text (identifiers, keywords, numbers), for indexes that answer "does this file say the word w" for
# many words at once: w (a run of word characters) is in the set exactly where ``\bw\b`` matches (str patterns and
# the str set: Unicode word characters; bytes: ASCII ones). One pass per file, whatever the number of words asked.
_WORDS = re.compile(r"\w+").findall
_BYTE_WORDS = re.compile(rb"\w+").findall


def _packages_reexporting(reexports: dict[str, str]) -> dict[str, set[str]]:
    """``{module: packages}``: the packages whose ``__init__.py`` re-exports a name of ``module`` or of a module
    under it (``pkg.alias`` -> ``pkg.sub.mod.name`` counts for ``pkg.sub.mod`` and ``pkg.sub``, and ``pkg``)."""
    found: dict[str, set[str]] = {}
    for alias, target in reexports.items():
        package = alias.rpartition(".")[0]
        at = target.find(".")
        while at >= 0:  # every prefix that ends before a dot: target.startswith(prefix + ".")
            found.setdefault(target[:at], set()).add(package)
            at = target.find(".", at + 1)
    return found


def _imported_candidates(candidates: list[tuple[str, str]], texts: list[tuple[str, str]],
                         quiet: list[str], reexports: dict | None = None) -> tuple[list[tuple[str, str]], dict | None]:
    """The ``(name, text)`` candidates for the pre-scan whose module another file of the run mentions,
    and what reading the ``quiet`` files again gave: bytes (or the OSError) of those that say one of
    the candidates' module names; None when they were not read.

    A module's pipelines can only be imported through its name (``from loaders.decorated import p``,
    ``from . import decorated``, ``import loaders.decorated``): where no other file says the module's
    last name, nobody can import its pipelines, and its own migration needs no pre-scan; a quiet file
    that says none of them cannot import a pipeline either. ``texts``: ``(name, text)`` of the files
    read; ``quiet``: files not kept in memory (read again here). Each file's words are found once (an
    index), not searched for each module's name: the cost grows with the files, not files times modules."""
    if not candidates:
        return candidates, {}
    # A module is imported by its own name or, through a package's re-exports, by the package's name.
    packages = _packages_reexporting(reexports or {})
    words = {}
    for name, _ in candidates:
        module = module_name_of(name)
        words[name] = (module.rpartition(".")[2], *(p.rpartition(".")[2] for p in packages.get(module, ()) if p))
    if not all(word.isascii() and word.isidentifier() for names in words.values() for word in names):
        return candidates, None  # a name the byte index below cannot spell: scan them all
    wanted = {word for names in words.values() for word in names}
    mentioned: dict[str, set[str]] = {}  # module word -> files that say it

    def note(name, found):
        for word in found:
            mentioned.setdefault(word, set()).add(name)

    for name, text in texts:
        note(name, wanted.intersection(_WORDS(text)))
    wanted_bytes = {word.encode() for word in wanted}
    quiet_reads: dict[str, bytes | OSError] = {}
    for name in quiet:
        try:
            data = read_bytes(name)
        except OSError as e:
            quiet_reads[name] = e  # reported if a pipeline turns out to be importable
            continue
        found = wanted_bytes.intersection(_BYTE_WORDS(data))
        if found:
            quiet_reads[name] = data
            note(name, (word.decode() for word in found))
    return [(name, text) for name, text in candidates
            if any(mentioned.get(word, set()) - {name} for word in words[name])], quiet_reads


def _scan_task(task: tuple) -> tuple[dict, dict, set, dict]:
    """One file's part of the project pre-scan, in a worker process: (pipelines, kept, source helpers, iterator
    wrappers) it defines. The run's Pipeline classes (a hierarchy across modules) are ``parallel.shared()``."""
    from .parallel import shared

    name, source = task
    found = Project()
    found.pipeline_classes = shared() or {}
    try:
        scan_source(source, name, found)
    except Exception:  # noqa: BLE001 - the file's own migration reports what is wrong with it
        return {}, {}, set(), {}
    return found.pipelines, found.kept, found.source_helpers, found.iterator_wrappers


_CLASS_BASES = re.compile(rb"class\s+\w+\s*\(([^)]*)").findall


def _pipeline_classes(sources: dict, slots: list, quiet: list, reexports: dict) -> dict:
    """The run's Pipeline classes where a hierarchy spans modules (``project.scan_classes``). A file that never says
    "dali" but names one of the run's Pipeline classes in a class statement may hold a subclass of it: it is read
    (it leaves ``quiet`` for ``sources``), so that its subclass migrates with the base, or keeps it."""
    classes = scan_classes(list(sources.values()), reexports)
    words = {r.name.encode() for r in classes.values() if "<" not in r.name}
    if all(word.isascii() for word in words):  # the words between a class statement's parentheses, against the set
        says_one = lambda data: any(words.intersection(_BYTE_WORDS(bases)) for bases in _CLASS_BASES(data))  # noqa: E731
    else:  # (a name the ASCII word index cannot spell)
        says_one = re.compile(rb"class\s+\w+\s*\([^)]*\b(?:" + b"|".join(map(re.escape, words)) + rb")\b").search
    grew = False
    for slot in list(quiet) if words else ():
        name = slots[slot].path
        if not name.endswith(".py"):
            continue
        try:
            data = read_bytes(name)
            if says_one(data):
                sources[slot] = (name, decode_source(data))
                slots[slot] = None
                quiet.remove(slot)
                grew = True
        except (OSError, SourceError):
            continue
    if grew:
        classes = scan_classes(list(sources.values()), reexports)
    return across_modules(classes)


def _migrate_task(task: tuple) -> tuple[MigrationResult, bool]:
    """One file, in a worker process: migrate its text and, when asked, write it. (result, written)
    The project, when the run has one, is ``parallel.shared()`` (sent to each worker once)."""
    from .parallel import shared

    path, source, write, *helper = task  # helper: the helper module to import from, or None
    project = shared()
    try:
        result = _migrate_text(source, path, Path(path).suffix, project, helper[0] if helper else None)
    except Exception as e:  # noqa: BLE001 - one file must never end the run (the engine catches its own)
        result = MigrationResult(path=path, original=source, migrated=source)
        result.error = f"internal error: {type(e).__name__}: {e}"
        result.findings = [Finding(rule="DM002", message=result.error, path=path, fixed=False)]
    if write:
        return _write_result(result)
    return result, False


def migrate_paths(paths, write: bool = False, *, jobs: int | None = None, include=None, exclude=None,
                  respect_gitignore: bool | None = None, progress: bool | None = None,
                  config=None) -> RunResult:
    """Migrate every Python file and notebook under ``paths``; write changed files only when ``write``.

    Folders are searched for ``.py``/``.ipynb`` files (or ``include`` globs) minus ``exclude`` globs
    and what git ignores; settings come from the nearest ``pyproject.toml`` ``[tool.dali-migrate]``
    (``config``: a ``config.Config``, or a path to a pyproject.toml), and arguments override it.
    Each file is read once; a file whose text cannot hold DALI is settled without parsing; the rest
    run one file per task over ``jobs`` processes (default: all cores), results in input order.
    ``progress``: draw a progress bar on stderr (None: only when stderr is a terminal).
    A file that fails (unreadable, unparsable, a pass error) is reported and left untouched; the
    other files are still done. Raises ``config.ConfigError`` for a bad configuration.
    """
    from .config import Config, config_for
    from .discovery import discover
    from .parallel import Progress, run_ordered
    from .transforms.unroll.helpers import is_helper_module

    paths = list(paths)
    if not isinstance(config, Config):
        config = config_for(paths, config)
    files = discover(paths, include=include or config.include, exclude=[*config.exclude, *(exclude or ())],
                     respect_gitignore=config.respect_gitignore if respect_gitignore is None else respect_gitignore,
                     root=config.root)
    run = RunResult()
    helpers = _Helpers(config.helper_module)
    # Read every file once. Files that could define a pipeline are pre-scanned, so that a module
    # using a pipeline defined in another file is migrated on both sides (cross-module).
    # The cheap text check is on the bytes, once per file: a file that never says "dali" (nor, below,
    # names a project pipeline) is settled without decoding, parsing or a worker.
    project = Project()
    slots: list[MigrationResult | None] = []  # one per file, in order; None: a task (below)
    sources: dict[int, tuple[str, str]] = {}  # slot -> (name, text) of the files to migrate
    quiet: list[int] = []  # slots of the files that never say "dali" (their bytes are not kept)
    to_scan: list[tuple[str, str]] = []  # (name, text) of the files that could define a pipeline
    for name in files:
        try:
            data = read_bytes(name)
        except OSError as e:
            slots.append(_read_error(name, e))
            continue
        if name.endswith("__init__.py"):
            project.reexports.update(_reexports(name, data))
        if is_helper_module(data):  # the helper module an earlier run wrote: not user code, never migrated
            slots.append(MigrationResult(path=name, original="", migrated=""))
            continue
        if _says_dali(data) is None:
            quiet.append(len(slots))
            slots.append(MigrationResult(path=name, original="", migrated=""))
            continue
        try:
            source = decode_source(data)
        except SourceError as e:
            slots.append(_unreadable(name, e))
            continue
        if b"pipeline_def" in data or b"Pipeline" in data or b"readers." in data or (  # (readers.: source helpers)
                b"DALIGenericIterator" in data or b"DALIClassificationIterator" in data  # (iterator wrappers, or
                or b"EpochIterator(" in data  # ones migrated already, or an iterator class over pipelines it is
                or b"share_outputs" in data or b"schedule_run" in data  # given: adapted.py)
                or b"epoch_size" in data or b"max_batch_size" in data or b"ReaderStream.adapt" in data):
            to_scan.append((name, source))
        sources[len(slots)] = (name, source)
        slots.append(None)
    # The pre-scan parses each file that could define a pipeline that another file imports: over the
    # workers, like the migration.
    jobs = jobs if jobs is not None else config.jobs
    to_scan, quiet_reads = _imported_candidates(to_scan, list(sources.values()), [slots[i].path for i in quiet],
                                                project.reexports)
    project.imported_modules.update(module_name_of(name) for name, _ in to_scan)
    project.pipeline_classes = _pipeline_classes(sources, slots, quiet, project.reexports)
    if project.pipeline_classes:  # the modules of a hierarchy across modules are scanned, whatever they say
        hierarchy_modules = {record.module for record in project.pipeline_classes.values()}
        scanned = {name for name, _ in to_scan}
        to_scan += [(name, text) for name, text in sources.values() if name not in scanned and name.endswith(".py")
                    and module_name_of(name) in hierarchy_modules]
    for pipelines, kept, source_helpers, wrappers in run_ordered(_scan_task, to_scan,
                                                                 jobs=jobs if len(to_scan) >= 8 else 1,
                                                                 shared=project.pipeline_classes):
        project.pipelines.update(pipelines)
        project.kept.update(kept)
        project.source_helpers.update(source_helpers)
        project.iterator_wrappers.update(wrappers)
    if project:
        # Files that never say "dali" but name a project pipeline are migrated too. Known only now,
        # so they were read again above (``quiet_reads``: only those that name a candidate module are
        # kept): holding every file of a tree in memory until here costs more (in memory, and in time
        # even where no DALI pipeline is defined) than a second read where one is.
        for slot in quiet:
            name = slots[slot].path
            try:
                data = read_bytes(name) if quiet_reads is None else quiet_reads.get(name)
                if isinstance(data, OSError):
                    raise data
                if data is not None and project.mentioned_in_bytes(data):
                    sources[slot] = (name, decode_source(data))
                    slots[slot] = None
            except OSError as e:
                slots[slot] = _read_error(name, e)
            except SourceError as e:
                slots[slot] = _unreadable(name, e)
    # Every module that will be migrated with the others: a pipeline value passed to one is followed there.
    project.modules = {module_name_of(name) for name in
                       [name for name, _ in sources.values()] + [slots[slot].path for slot in quiet if
                                                                 slots[slot] is not None and not slots[slot].error]
                       if name.endswith(".py")}
    # What another file says of an imported module: a function there that returns a pipeline's outputs keeps it
    project.said_elsewhere = said_elsewhere(project.imported_modules, list(sources.values()), quiet_reads)
    task_slots = sorted(sources)
    # With pipelines shared between modules, a unit can span files: the files are migrated without writing
    # until no module keeps in pipeline mode a pipeline that another one migrated, then written.
    shared = len(task_slots) > 1 or bool(task_slots) and len(slots) > 1
    helpers.plan([name for name, _ in sources.values()])
    tasks = [(*sources[slot], write and not shared, helpers.importable(sources[slot][0])) for slot in task_slots]
    # The bar counts every file, as the summary does; those settled without a worker are done already.
    bar = Progress(len(slots), enabled=Progress.wanted(progress) and len(tasks) >= 20)
    bar.advance(len(slots) - len(tasks))
    try:
        done = run_ordered(_migrate_task, tasks, jobs=jobs, progress=bar,
                           shared=project if shared or project else None)
    finally:
        bar.close()
    results = {slot: result for slot, (result, _) in zip(task_slots, done)}
    written = {slot for slot, (_, wrote) in zip(task_slots, done) if wrote}
    if shared:
        others = {slot: slots[slot].path for slot in quiet if slots[slot] is not None}  # not migrated yet
        _agree_on_kept_units(project, results, sources, jobs, others, helpers)
        helpers.share(results, sources, project, jobs)
        if write:
            for slot, result in results.items():
                _, wrote = _write_result(result)
                if wrote:
                    written.add(slot)
    else:  # (the file chose its helper module as planned: this only reports a file of that name in the way)
        helpers.share(results, sources, project, jobs)
    made = helpers.files(results, sources)
    for slot in sorted(results):
        slots[slot] = results[slot]
        if slot in written:
            run.written.append(results[slot].path)
    for result in made:
        if write and not result.error:
            if result.created and Path(result.path).exists():  # appeared since the run looked: never overwritten
                result.error = f"cannot write the helper module {result.path}: a file appeared there during the run"
                result.findings.append(Finding(rule="DM001", message=result.error, path=result.path, fixed=False))
                continue
            _, wrote = _write_result(result)
            if wrote:
                run.written.append(result.path)
    run.files = [r for r in slots if r is not None]
    run.files += _in_place_of_scanned(run.files, made)
    return run


def _in_place_of_scanned(results: list[MigrationResult], made: list[MigrationResult]) -> list[MigrationResult]:
    """An earlier release's helper module is a file of the run too (scanned, left as it is): its update takes that
    entry's place in ``results``, so it is listed once. The rest of ``made`` comes back, to be listed after them."""
    updates = {r.path: r for r in made if r.changed and not r.created}
    for i, result in enumerate(results):
        if result.path in updates and not result.changed:
            results[i] = updates.pop(result.path)
    return [r for r in made if not (r.changed and not r.created) or r.path in updates]


def share_helpers(results: list[MigrationResult], paths, project=None, base: Path | None = None) -> list[MigrationResult]:
    """For commands that migrate file by file (review, report, the MCP server): what ``migrate_paths`` does with the run-time
    helpers, so they show the same files: modules that share an import root import the helpers from the
    project's helper module (``results`` updated in place), and the helper modules the run would create
    come back, to be listed with the other files (an earlier release's helper module, brought up to date, takes
    the place of its entry in ``results``). ``base``: the folder the results' relative paths start
    from (default: the current folder); the created files' paths are shown relative to it too."""
    from .config import ConfigError, config_for

    try:
        module = config_for(list(paths)).helper_module
    except ConfigError:
        module = _Helpers.default()
    helpers = _Helpers(module, base)
    helpers.plan([r.path for r in results])
    keyed = {i: r for i, r in enumerate(results)}
    sources = {i: (r.path, r.original) for i, r in keyed.items()}
    helpers.share(keyed, sources, project, 1)
    results[:] = [keyed[i] for i in range(len(results))]
    return _in_place_of_scanned(results, helpers.files(keyed, sources))


class _Helpers:
    """The project's helper module (``transforms/unroll/helpers.py``): where it goes for the run (``plan``), what is
    there already, which modules import from it, and the file the run creates or extends."""

    @staticmethod
    def default() -> str:
        from .transforms.unroll.helpers import DEFAULT_MODULE

        return DEFAULT_MODULE

    def __init__(self, module: str, base: Path | None = None):
        self.module = module
        self.base = base  # where relative file names start (None: the current folder)
        self._roots: dict = {}  # location -> "ours" | "older" | "missing" | "other" | "no-package"
        self._held: dict = {}  # location -> the helpers the file there holds ("ours", "older")
        self._where: dict = {}  # import root -> the folder whose helper module its modules import (plan)
        self.errors: dict = {}  # location -> MigrationResult with the error

    def _root(self, name: str):
        from .transforms.unroll.helpers import import_root

        return import_root(Path(self.base, name) if self.base is not None else name)

    def plan(self, names) -> None:
        """One helper module for the run: at the top of the import roots of ``names`` (the run's files), their
        common folder, for each root that is the top or whose modules already import a module that lives at
        the top (``from test_utils import ...`` in a subfolder of tests run from the top: the top is on their
        ``sys.path``); any other root, which the top's module would not be importable from, keeps its own."""
        import os
        import re

        roots: dict = {}
        for name in names:
            roots.setdefault(self._root(name), []).append(name)
        if len(roots) < 2:
            return
        top = Path(os.path.commonpath([str(root) for root in roots]))
        if top.parent == top:  # nothing in common but the file system's root
            return
        at_top = {p.stem for p in top.glob("*.py")} | {p.name for p in top.iterdir() if (p / "__init__.py").is_file()}
        imported = re.compile(r"^[ \t]*(?:from|import)[ \t]+(\w+)", re.M)
        for root, files in roots.items():
            if root == top:
                self._where[root] = top
                continue
            own = {p.stem for p in root.glob("*.py")} | {p.name for p in root.iterdir() if (p / "__init__.py").is_file()}
            for name in files:
                try:
                    text = read_bytes(str(Path(self.base, name) if self.base is not None else name)).decode(
                        "utf-8", "replace")
                except OSError:
                    continue
                if any(m in at_top and m not in own for m in imported.findall(text)):
                    self._where[root] = top
                    break

    def location(self, name: str) -> Path:
        """The folder whose helper module the file ``name`` imports."""
        root = self._root(name)
        return self._where.get(root, root)

    def path(self, root) -> Path:
        from .transforms.unroll.helpers import module_path

        return module_path(root, self.module)

    def state(self, root) -> str:
        if root not in self._roots:
            path = self.path(root)
            if not path.parent.is_dir():
                self._roots[root] = "no-package"
            elif not path.exists():
                self._roots[root] = "missing"
            else:
                try:
                    self._roots[root] = self._whose(root, read_bytes(str(path)))
                except OSError:
                    self._roots[root] = "other"
        return self._roots[root]

    def _whose(self, root, data: bytes) -> str:
        """"ours" (today's text), "older" (an earlier release's, unedited: brought up to date) or "other"."""
        from .transforms.unroll.helpers import earlier_names, held_names

        held = held_names(data)
        if held is not None:
            self._held[root] = held
            return "ours"
        held = earlier_names(data)
        if held is not None:
            self._held[root] = held
            return "older"
        return "other"

    def importable(self, name: str) -> str:
        """The helper module the file ``name`` imports its helpers from; "" where none can be written there (a file
        of that name with other content, no such package): then they go into the file itself, and the run
        reports why (``share``)."""
        return self.module if self.state(self.location(name)) in ("ours", "older", "missing") else ""

    def display(self, root, like: str) -> str:
        """The helper module's path, shown the way ``like`` (a file of the run) is shown."""
        import os

        path = self.path(root)
        if os.path.isabs(like):
            return str(path)
        shown = os.path.relpath(path, self.base) if self.base is not None else os.path.relpath(path)
        return "./" + shown if like.startswith("./") and not shown.startswith(".") else shown

    def share(self, results: dict, sources: dict, project, jobs) -> None:
        """Every module that needs helpers imports them as ``importable`` says: one migrated file by file
        without the run's plan (review, report, the MCP server), or that imports another module than the
        setting's, is migrated again; where a file of that name with other content is in the way, the
        helpers stay in the modules and the run reports the error."""
        from .parallel import run_ordered

        from .transforms.unroll.helpers import importers

        again = []
        for slot, result in results.items():
            if not result.helpers or result.error:
                continue
            wanted = self.importable(result.path)
            if not wanted:
                location = self.location(result.path)
                self._error(location, [r.path for r in results.values() if r.helpers and not r.error
                                       and self.location(r.path) == location], self.state(location))
            if bool(importers(result.migrated, self.module)) != bool(wanted):
                again.append(slot)
        tasks = [(*sources[slot], False, self.importable(sources[slot][0])) for slot in again]
        for slot, (result, _) in zip(again, run_ordered(_migrate_task, tasks, jobs=jobs, shared=project)):
            results[slot] = result

    def _error(self, root, users: list[str], state: str) -> None:
        if root in self.errors:
            return
        shown = self.display(root, users[0])
        why = (f"the folder for {self.module} does not exist" if state == "no-package" else
               "it exists with other content (not the file dali-migrate writes); it was not overwritten")
        message = (f"cannot write the helper module {shown}: {why}; {', '.join(users)} hold their helpers themselves. "
                   f"Move the file away, or set helper_module = \"...\" in [tool.dali-migrate] to another name")
        result = MigrationResult(path=shown, original="", migrated="")
        result.error = message
        result.findings = [Finding(rule="DM001", message=message, path=shown, fixed=False)]
        self.errors[root] = result

    def files(self, results: dict, sources: dict) -> list[MigrationResult]:
        """The helper modules this run creates or extends: one per location whose migrated modules import helpers
        it does not hold yet (an earlier release's text is brought up to date, keeping the helpers it held), and
        the errors ``share`` found. Each file lists the imports it serves."""
        from .transforms.unroll.helpers import imported_names, module_text

        users: dict = {}
        for slot, result in results.items():
            if result.error:
                continue
            text = result.migrated if result.migrated else sources[slot][1]
            for line, names in imported_names(text, self.module):
                users.setdefault(self.location(result.path), []).append((result.path, line, names))
        made = []
        for root, where in users.items():
            state = self.state(root)
            if state not in ("missing", "older", "ours"):
                self._error(root, sorted({path for path, _, _ in where}), state)
                continue
            held = self._held.get(root, frozenset())
            wanted = held | {name for _, _, names in where for name in names}
            if state == "ours" and wanted == held:
                continue
            shown = self.display(root, where[0][0])
            added = ", ".join(sorted(wanted - held))
            what = (f"updates the helper module {self.module}, written by an earlier dali-migrate, to today's helpers;"
                    if state == "older" else f"adds {added} to the helper module {self.module},"
                    if state == "ours" else f"creates the helper module {self.module} ({added}),")
            result = MigrationResult(path=shown, original="" if state == "missing" else read_bytes(
                str(self.path(root))).decode(), migrated=module_text(wanted), uses_dali=True, created=state == "missing")
            result.findings = [Finding(rule="DM224", path=shown, line=0, message=(
                f"{what} imported by " + ", ".join(f"{path}:{line}" for path, line, _ in where)))]
            made.append(result)
        return made + list(self.errors.values())


def _agree_on_kept_units(project: Project, results: dict, sources: dict, jobs, others: dict,
                         runtime_helpers=None) -> None:
    """Migrate again the files that share a pipeline some module keeps in pipeline mode, until every
    module agrees (a unit that spans modules moves whole); a module of the run that imports no DALI but
    gets pipelines passed (``others``: slot -> path) joins in when it does. A few rounds at most: each one
    only adds to what the modules know.

    A module migrates again only when what it read of the project changed: a pipeline it shares (imports, defines,
    builds or is given: ``MigrationResult.kept_reads``) is newly kept by another module, or other modules build
    with or pass pipelines to its own functions (``graph_helpers``, ``foreign_calls``). Each round costs the
    modules it concerns, not the repository (a scan of every file for every kept name made runs quadratic)."""
    from .dataflow import is_site, join_kind, site_module
    from .parallel import run_ordered

    modules = {module_name_of(name): slot for slot, (name, _) in sources.items()}
    quiet_modules = {module_name_of(name): slot for slot, name in others.items()}
    for _ in range(4):
        new: dict = {}  # (each pipeline's first reason in the order of the modules' paths: the same in every run)
        for result in sorted(results.values(), key=lambda r: str(r.path)):
            for q, why in result.kept_pipelines.items():
                if q not in project.kept:
                    new.setdefault(q, why)
        for result in results.values():  # a module that is not migrated keeps what it is passed
            if result.error:
                module = module_name_of(result.path)
                for q, why in project.kept_for_unmigrated(module, f"in {module}: not migrated ({result.error})").items():
                    if q not in project.kept:
                        new.setdefault(q, why)
        helpers, calls = {}, {}
        for result in results.values():
            for helper, pipelines in result.graph_helpers.items():
                known = project.graph_helpers.get(helper, set())
                if not set(pipelines) <= known:
                    helpers[helper] = known | set(pipelines)
            for callee, arguments in result.foreign_calls.items():
                known = dict(calls.get(callee) or project.foreign_calls.get(callee, {}))
                for key, (kind, origins) in arguments.items():
                    old_kind, old_origins = known.get(key, (None, []))
                    merged = (join_kind(old_kind, kind), sorted(set(old_origins) | set(origins)))
                    if merged != known.get(key):
                        known[key] = merged
                        calls[callee] = known
        if not new and not helpers and not calls:
            return
        project.kept.update(new)
        project.graph_helpers.update(helpers)
        project.foreign_calls.update(calls)
        again = {modules[h.rpartition(".")[0]] for h in (*helpers, *calls) if h.rpartition(".")[0] in modules}
        for callee in (*helpers, *calls):
            slot = quiet_modules.pop(callee.rpartition(".")[0], None)
            if slot is not None:
                try:
                    sources[slot] = (others[slot], decode_source(read_bytes(others[slot])))
                except (OSError, SourceError):
                    continue
                modules[callee.rpartition(".")[0]] = slot
                again.add(slot)
        for q in new:  # an operator another module was given keeps its unit there: the module that named it keeps it
            if is_site(q) and site_module(q) in modules:
                again.add(modules[site_module(q)])
        for slot, result in results.items():
            if any(q in new and q not in result.kept_pipelines for q in result.kept_reads):
                again.add(slot)  # it shares one that it migrated: do it again
        again = sorted(again)
        tasks = [(*sources[slot], False,
                  runtime_helpers.importable(sources[slot][0]) if runtime_helpers is not None else None)
                 for slot in again]
        for slot, (result, _) in zip(again, run_ordered(_migrate_task, tasks, jobs=jobs, shared=project)):
            results[slot] = result


def _write_result(result: MigrationResult) -> tuple[MigrationResult, bool]:
    if not result.changed:
        return result, False
    try:
        atomic_write(Path(result.path), result.migrated)
        return result, True
    except OSError as e:
        result.error = f"cannot write: {e.strerror or e}"
        result.findings.append(Finding(rule="DM001", message=result.error, path=result.path, fixed=False))
        return result, False


def _reexports(name: str, data: bytes) -> dict[str, str]:
    """What a package's ``__init__.py`` re-exports from its modules: ``{"pkg.alias": "pkg.mod.name"}``."""
    import ast

    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    package = module_name_of(name)
    found = {}
    for statement in tree.body:
        if not isinstance(statement, ast.ImportFrom) or not statement.module and not statement.level:
            continue
        if statement.level:
            parts = package.split(".") if package else []
            base_parts = parts[:len(parts) - (statement.level - 1)] if statement.level > 1 else parts
            base = ".".join([*base_parts, *([statement.module] if statement.module else [])])
        else:
            base = statement.module
        for alias in statement.names:
            if alias.name != "*":
                found[f"{package}.{alias.asname or alias.name}" if package else alias.asname or alias.name] = \
                    f"{base}.{alias.name}"
    return found


__all__ = ["migrate_source", "migrate_file", "migrate_paths", "MigrationResult", "RunResult", "Finding",
           "EXIT_CLEAN", "EXIT_PENDING", "EXIT_ERROR"]
