"""The project pre-scan: which pipelines the files being migrated define, so that a module that imports
one (``from loaders.decorated import train_pipe``) and builds or runs it is migrated too.

``scan_project(paths)`` is a first pass over every file: files whose text cannot define a pipeline are
skipped unread by libcst; the others are parsed and run through the unroll pass's own discovery (no
rewriting), so the record says exactly what the migration of that file will do: which pipelines
become generators or classes, and which stay in pipeline mode. The result is a small picklable
``Project`` handed to ``migrate_source(..., project=...)``.

Module names come from the file's place among packages: ``examples/repo/loaders/decorated.py`` is
``loaders.decorated`` because ``loaders`` has an ``__init__.py`` and ``repo`` has none.
"""

from __future__ import annotations

import re

from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst

from .source import parse_module
from .names import _PIPELINE_NAMES, CALLED_SUFFIX
from .files import SourceError, iter_source_files, module_name_of, read_source

_DEFINES = ("pipeline_def", "Pipeline", "readers.")  # (readers.: a module of source helpers)


@dataclass(frozen=True)
class ProjectPipeline:
    module: str  # dotted module name, "loaders.decorated"
    name: str  # the name the module binds: a function, a class or a pipeline object
    style: str  # "def" | "class" | "factory" (a function returning a `with pipe:` pipeline) | "object"
    path: str
    params: tuple[str, ...] = ()
    batch_size: str | None = None  # the decorator's / constructor's batch_size, as code
    checkpoint: bool = False  # a @pipeline_def migrated with a checkpoint= parameter
    # a @pipeline_def its module writes as a ReaderStream (unroll.streamable): other modules may ask its readers'
    # metadata (epoch_size(name), reader_meta(name), an iterator's reader_name=) and it answers at run time
    streamed: bool = False
    # a Pipeline subclass: the attributes other modules may read of its objects, as its module's own code may
    # (dataflow.DataFlow.outside_attributes: its kept methods, the plain values its own methods set), each with the
    # __init__ parameters whose arguments (in the module that constructs it) decide
    attributes: tuple = ()

    @property
    def qualname(self) -> str:
        return f"{self.module}.{self.name}"


@dataclass(frozen=True)
class ProjectClass:
    """A Pipeline subclass of a module of the run (``scan_classes``), as other modules of the run see it: a subclass
    there of this one (or this one, of a base there) migrates consistently with it (capability 2, unroll/class_hierarchy.py)."""
    module: str
    name: str
    source: str  # the class's own text, parsed where another module needs its methods
    bases: tuple[str, ...]  # qualnames of its bases ("" where one is not a plain imported or module name)
    aliases: tuple[tuple[str, str], ...]  # its module's imports: local name -> qualname (relative ones resolved)
    methods: tuple[str, ...]

    @property
    def qualname(self) -> str:
        return f"{self.module}.{self.name}"


@dataclass
class Project:
    pipelines: dict[str, ProjectPipeline] = field(default_factory=dict)  # qualname -> pipeline
    # qualname -> (the module that keeps it, why it stays in pipeline mode). A migration unit can span
    # modules (a pipeline defined in one, used in another): when one module keeps it, every module keeps it
    # (``api.migrate_paths`` migrates again until no module keeps a pipeline that another migrated). The
    # keeping module finds its own reasons again and marks them; the others mark where they use it.
    kept: dict[str, tuple[str, str]] = field(default_factory=dict)
    # A package's re-exports (``pkg/__init__.py``: ``from .pipes import make_pipe``): "pkg.make_pipe" ->
    # "pkg.pipes.make_pipe".
    reexports: dict[str, str] = field(default_factory=dict)
    # Functions that pipelines of other modules build their graphs with: helper qualname -> those pipelines.
    graph_helpers: dict[str, set[str]] = field(default_factory=dict)
    # What modules pass to other modules' functions and classes: callee qualname -> {argument: (kind, origins)}.
    foreign_calls: dict[str, dict] = field(default_factory=dict)
    # Modules whose name another file of the run says (``from loaders.pipes import p``): their pipelines may
    # be called from there, so their generators keep every pipeline parameter (``Unroller.plan_params``).
    imported_modules: set[str] = field(default_factory=set)
    # Graph helpers that hold their pipelines' readers (``source_helpers``), by qualname -> whether they call a
    # random operator (the calling pipeline's seed applies to it). The pipelines that call one create its stream
    # once and pull it each step.
    source_helpers: dict[str, bool] = field(default_factory=dict)
    # Functions and iterator subclasses that hand their arguments straight to a PyTorch iterator deciding at run
    # time which kind of pipeline it got (DM241): qualname -> the positions and keywords that may carry pipelines.
    # A pipeline passed there migrates (as a ReaderStream): the callee works with either kind.
    iterator_wrappers: dict[str, frozenset] = field(default_factory=dict)
    # The modules of the run that will be migrated (DALI or not). A pipeline value passed to a function or class of
    # one of them is followed there: that module learns what it gets (``foreign_calls``) and migrates its uses, or
    # keeps the pipeline in pipeline mode, and then every module keeps it (``api._agree_on_kept_units``).
    modules: set[str] = field(default_factory=set)
    # The Pipeline subclasses of the run's modules, by qualname (``scan_classes``): a class hierarchy across
    # modules (a base in one, its subclasses in others) is migrated on both sides alike.
    pipeline_classes: dict[str, ProjectClass] = field(default_factory=dict)
    # The top-level functions and classes of those imported modules whose names another file of the run says: module
    # -> names. What one of them returns goes to that file, which the migration does not follow into (a function
    # returning a pipeline's outputs keeps its pipeline: units.outputs_returned).
    said_elsewhere: dict[str, frozenset] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.pipelines or self.kept or self.source_helpers or self.iterator_wrappers
                    or self.pipeline_classes)

    def foreign_base(self, module: str, name: str) -> ProjectClass | None:
        """The Pipeline class of another module of the run that class ``name`` of ``module`` derives from."""
        record = self.pipeline_classes.get(f"{module}.{name}")
        if record is None:
            return None
        found = [self.pipeline_classes[base] for base in record.bases if base in self.pipeline_classes
                 and self.pipeline_classes[base].module != module]
        return found[0] if len(found) == 1 else None

    def foreign_subclasses(self, module: str, name: str) -> list[ProjectClass]:
        """The Pipeline classes of other modules of the run that derive from class ``name`` of ``module``."""
        qualname = f"{module}.{name}"
        return [record for record in self.pipeline_classes.values()
                if record.module != module and qualname in record.bases]

    def concerns(self, path: str) -> bool:
        """Other modules pass pipeline values to this module's functions, or build pipelines with them."""
        if not (self.foreign_calls or self.graph_helpers):
            return False
        module = module_name_of(path)
        return any(callee.removesuffix(CALLED_SUFFIX).rpartition(".")[0] == module
                   for callee in (*self.foreign_calls, *self.graph_helpers))

    def kept_for_unmigrated(self, module: str, why: str) -> dict[str, tuple[str, str]]:
        """What other modules pass to the functions and classes of ``module``, which is not migrated (it does not
        parse, its migration failed: ``why``): it cannot learn what it gets, so those pipelines stay in pipeline mode
        (as ``kept``: qualname -> (module, why))."""
        found: dict[str, tuple[str, str]] = {}
        for callee, arguments in self.foreign_calls.items():
            if self.resolve(callee).rpartition(".")[0] == module:
                for _kind, origins in arguments.values():
                    for qualname in origins:
                        found.setdefault(qualname, (module, why))
        return found

    def resolve(self, qualname: str) -> str:
        """The qualname a re-exported name stands for (itself when it is not re-exported)."""
        for _ in range(8):
            target = self.reexports.get(qualname)
            if target is None:
                break
            qualname = target
        return qualname

    def mentioned_in(self, text: str) -> bool:
        """Cheap text check: could this file import one of the project's pipelines?"""
        return any(p.name in text for p in self.pipelines.values())

    def mentioned_in_bytes(self, data: bytes) -> bool:
        return any(p.name.encode() in data for p in self.pipelines.values())

    def follows(self, qualname: str, here: str) -> bool:
        """A call of ``qualname`` from module ``here`` reaches another module of the run."""
        module = self.resolve(qualname).rpartition(".")[0]
        return module != here and module in self.modules

    def imported_by(self, imports) -> list[ProjectPipeline]:
        """The project pipelines a module imports (through its import table)."""
        found = {self.resolve(q) for q in set(imports.aliases.values())}
        return [self.pipelines[q] for q in found if q in self.pipelines]

    def lookup(self, imports, local_name: str) -> ProjectPipeline | None:
        qualname = imports.aliases.get(local_name)
        return self.pipelines.get(self.resolve(qualname)) if qualname else None

    def qualname_of(self, imports, local_name: str) -> str | None:
        """The project qualname an imported local name stands for, pipeline or not (re-exports followed)."""
        qualname = imports.aliases.get(local_name)
        return self.resolve(qualname) if qualname else None


# Words of a module whose functions or classes may take pipelines of other modules and decide at run time: a PyTorch
# iterator, or pipeline-only calls on what it is given (unroll/adapted.py), or their migrated form.
_WRAPPER_WORDS = ("Iterator", "share_outputs", "schedule_run", "release_outputs", "_prefetch", "ReaderStream.adapt",
                  "epoch_size", "max_batch_size", "reader_meta")


def scan_source(text: str, path: str, project: Project) -> None:
    """Add the pipelines ``text`` (the file at ``path``) defines to ``project``, and its iterator wrappers."""
    if any(word in text for word in _WRAPPER_WORDS):
        _scan_iterator_wrappers(text, path, project)
    name = module_name_of(path)
    # a module of a class hierarchy across modules: its classes are Pipeline classes whatever it imports
    in_hierarchy = any(record.module == name for record in project.pipeline_classes.values())
    if not in_hierarchy and not any(word in text for word in _DEFINES):
        return
    from .elision import elide
    from .context import MigrationContext
    from .names import ImportTable
    from .transforms import ELISION_WORDS
    from .transforms.unroll import graph_functions, module_symbols
    from .transforms.unroll.model import code_of
    from .transforms.unroll.unroll import Unroller, streamable
    from .transforms.unroll.discovery import Discovery
    from .walk import walk

    # As in the migration, top-level statements that cannot concern a pipeline are not parsed.
    elision = elide(text, ELISION_WORDS)
    try:
        module = parse_module(elision.text if elision else text)
    except (cst.ParserSyntaxError, RecursionError):
        return  # the migration reports it
    imports = ImportTable.from_module(module)
    if not imports.uses_dali() and not in_hierarchy:
        return
    from .transforms.unroll import source_helpers

    project.source_helpers.update({f"{name}.{function}": helper.random
                                   for function, helper in source_helpers.find(module, imports).items()})
    ctx = MigrationContext(path=path, source=elision.text if elision else text, imports=imports, elision=elision)
    if project.pipeline_classes:  # a class hierarchy across modules is described as its migration will be
        ctx.facts["project"] = project
    ctx.facts["module_symbols"] = module_symbols(module, elision)
    ctx.facts["reader_functions"], ctx.facts["seeded_functions"] = graph_functions.find(module, imports)
    discovery = Discovery(ctx)
    walk(module, discovery)  # read-only: no rebuild
    if not discovery.anything():
        return
    unroller = Unroller(ctx, discovery)  # describes every pipeline; nothing is rewritten
    top_level = {s.name.value for s in module.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))}
    from .dataflow import PIPELINE, DataFlow

    flow = DataFlow(module, imports)
    for pipeline, desc in unroller.descs.items():
        if pipeline not in top_level:
            continue
        batch_size = desc.config.get("batch_size")
        project.pipelines[f"{name}.{pipeline}"] = ProjectPipeline(
            module=name, name=pipeline, style=desc.style, path=str(path), params=tuple(desc.params),
            batch_size=code_of(batch_size) if batch_size is not None else None,
            checkpoint=bool(desc.extra.get("checkpoint")), streamed=streamable(desc),
            attributes=flow.outside_attributes(pipeline) if desc.style == "class" else ())
    for function, key in discovery.factories.items():
        if function in top_level and key in unroller.with_ok:
            project.pipelines[f"{name}.{function}"] = ProjectPipeline(
                module=name, name=function, style="factory", path=str(path),
                streamed=key in unroller.with_readers and key not in unroller.with_checkpoint)
    # Any other top-level function that returns one of this module's unrolled pipelines (def or with
    # style: a generator once migrated) is a factory for the modules that import it.
    generators = {p for p, desc in unroller.descs.items() if desc.style == "def"} | set(unroller.with_ok)
    for statement in module.body:
        if not isinstance(statement, cst.FunctionDef) or f"{name}.{statement.name.value}" in project.pipelines:
            continue
        returned = flow._returns.get(statement)
        if returned is not None and returned[0] == PIPELINE and returned[1] and returned[1] <= generators:
            project.pipelines[f"{name}.{statement.name.value}"] = ProjectPipeline(
                module=name, name=statement.name.value, style="factory", path=str(path))
    for key in unroller.with_ok:
        scope, _, var = key.partition(":")
        if scope == "" and "." not in var:
            project.pipelines[f"{name}.{var}"] = ProjectPipeline(module=name, name=var, style="object",
                                                                 path=str(path))
    for pipeline in unroller.keep:
        project.kept[f"{name}.{pipeline}"] = (name, "stays in pipeline mode (marked in its module)")


def _scan_iterator_wrappers(text: str, path: str, project: Project) -> None:
    from .names import ImportTable
    from .transforms.unroll.helpers import is_helper_import
    from .transforms.unroll.iterator_subclass import run_time_inputs

    try:
        module = parse_module(text)
    except (cst.ParserSyntaxError, RecursionError):
        return  # the migration reports it
    imports = ImportTable.from_module(module)
    if not imports.uses_dali() and not any(is_helper_import(s) for s in module.body):
        return  # (a module migrated already may import only the run-time helpers: its EpochIterator decides too)
    name = module_name_of(path)
    for callee, keys in run_time_inputs(module, imports).items():
        project.iterator_wrappers[f"{name}.{callee}"] = keys


def _ast_aliases(tree, module: str, is_package: bool) -> dict[str, str]:
    import ast

    aliases = {}
    package = module if is_package else module.rpartition(".")[0]
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    aliases.setdefault(alias.name.split(".")[0], alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".") if package else []
                parts = parts[:len(parts) - (node.level - 1)] if node.level > 1 else parts
                base = ".".join([*parts, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            for alias in node.names:
                if alias.name != "*" and base:
                    aliases[alias.asname or alias.name] = f"{base}.{alias.name}"
    return aliases


def scan_classes(texts, reexports: dict | None = None) -> dict[str, ProjectClass]:
    """The Pipeline subclasses of the run's ``(path, text)`` Python files, by qualname: a class that derives from
    ``Pipeline`` or, in its module or another of the run, from such a class (read with ``ast``: fast, no rewriting).
    A relative import (``from .pipeline import GenericPipeline``) is resolved by the file's place among packages."""
    import ast

    found: dict[str, ProjectClass] = {}
    for path, text in texts:
        if not str(path).endswith(".py") or "class " not in text:
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        module = module_name_of(path)
        aliases = _ast_aliases(tree, module, Path(path).stem == "__init__")
        top = {s.name for s in tree.body if isinstance(s, ast.ClassDef)}
        nested = [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef) and node not in tree.body]
        for statement in [*tree.body, *nested]:
            if not isinstance(statement, ast.ClassDef) or not statement.bases:
                continue
            bases = []
            for base in statement.bases:
                name = ast.unparse(base) if isinstance(base, (ast.Name, ast.Attribute)) else ""
                root, _, rest = name.partition(".")
                if root in top and not rest:
                    bases.append(f"{module}.{root}")
                elif root in aliases:
                    full = f"{aliases[root]}.{rest}" if rest else aliases[root]
                    for _ in range(8):
                        full = (reexports or {}).get(full, full)
                    bases.append(full)
                else:
                    bases.append("")
            source = ast.get_source_segment(text, statement) or ""
            # a class inside a function or class: known (its base must not migrate without it), never migrated
            # with a base of another module
            qualname = f"{module}.{statement.name}" if statement in tree.body else \
                f"{module}.<nested>.{statement.name}.{statement.lineno}"
            found[qualname] = ProjectClass(
                module=module, name=qualname[len(module) + 1:], source=source, bases=tuple(bases),
                aliases=tuple(sorted(aliases.items())),
                methods=tuple(s.name for s in statement.body if isinstance(s, ast.FunctionDef)))
    pipelines: set[str] = set()
    grew = True
    while grew:
        grew = False
        for qualname, record in found.items():
            if qualname not in pipelines and any(b in _PIPELINE_NAMES or b in pipelines for b in record.bases):
                pipelines.add(qualname)
                grew = True
    return {q: found[q] for q in sorted(pipelines)}


def across_modules(classes: dict) -> dict:
    """The run's Pipeline classes when one derives from a Pipeline class of another module (the modules then
    migrate the hierarchy alike); otherwise none (each module's classes are its own business)."""
    if any(base in classes and classes[base].module != record.module for record in classes.values()
           for base in record.bases):
        return classes
    return {}


def scan_project(paths) -> Project:
    """The pre-scan over every Python file under ``paths``."""
    project = Project()
    texts = {}
    for path in iter_source_files(paths):
        try:
            texts[str(path)] = read_source(path)
        except (SourceError, OSError):
            continue
    project.pipeline_classes = across_modules(scan_classes(list(texts.items())))
    for name, text in texts.items():
        scan_source(text, name, project)
    modules = {name: module_name_of(name) for name in texts}
    words = {name: set(re.findall(r"\w+", text)) for name, text in texts.items()}  # each file's, once
    for module in {p.module for p in project.pipelines.values()}:
        last = module.rpartition(".")[2]
        if re.fullmatch(r"\w+", last):
            says = lambda name: last in words[name]  # noqa: E731
        else:  # (a module name no word spells: its text is searched)
            pattern = re.compile(rf"(?<!\w){re.escape(last)}(?!\w)")
            says = lambda name: pattern.search(texts[name])  # noqa: E731
        if any(modules[name] != module and says(name) for name in texts):
            project.imported_modules.add(module)
    project.said_elsewhere = said_elsewhere(project.imported_modules, list(texts.items()))
    return project


_WORDS = re.compile(r"\w+").findall
_BYTE_WORDS = re.compile(rb"\w+").findall
_TOP_LEVEL_DEFS = re.compile(r"^(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)", re.M).findall


def said_elsewhere(imported: set[str], texts: list[tuple[str, str]],
                   quiet_reads: dict | None = None) -> dict[str, frozenset]:
    """``Project.said_elsewhere``: for each module of ``imported`` (another file says its name), its top-level
    functions and classes whose names another file of the run says, from each file's words (found once). ``texts``:
    ``(name, text)`` of the files read; ``quiet_reads``: the bytes of files not kept as text (the run's quiet files
    that say a candidate module's name: ``api._imported_candidates``)."""
    defined = {name: set(_TOP_LEVEL_DEFS(text)) for name, text in texts if module_name_of(name) in imported}
    wanted = set().union(*defined.values()) if defined else set()
    if not wanted:
        return {}
    saying: dict[str, set[str]] = {}  # name -> the files that say it
    for name, text in texts:
        for word in wanted.intersection(_WORDS(text)):
            saying.setdefault(word, set()).add(name)
    wanted_bytes = {word.encode() for word in wanted}
    for name, data in (quiet_reads or {}).items():
        if isinstance(data, bytes):
            for word in wanted_bytes.intersection(_BYTE_WORDS(data)):
                saying.setdefault(word.decode(), set()).add(name)
    found = {}
    for name, names in defined.items():
        said = frozenset(d for d in names if saying.get(d, set()) - {name})
        if said:
            found[module_name_of(name)] = said
    return found


__all__ = ["Project", "ProjectClass", "ProjectPipeline", "across_modules", "scan_classes", "said_elsewhere", "scan_project", "scan_source", "module_name_of"]
