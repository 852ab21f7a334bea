"""The engine: parse once, run the passes in order over one tree, collect findings.

Safety rules live here: a file that does not parse, or that libcst does not print back
byte-identical, is reported and left untouched; so is a file on which a pass fails.

Speed: top-level statements no pass can concern are left out of the parse and put back byte for
byte (``elision``); the parse skips libcst's per-node validation (``source.parse_module``); the passes skip
subtrees without their words, in the parsed text or in the templates they build (``built_words``),
and rebuild only what they change (``walk``); one codegen walk gives the round-trip check
and every node's place (``source.Layout``), turned into lines only for the nodes a finding points at; the
final print copies what no pass changed (``source.print_code``); the cyclic garbage collector is paused per
file (``migrate_source``). ``benchmarks/speed.py`` measures it against a bare libcst round trip.
"""

from __future__ import annotations

import difflib
import gc
import os
import re
from pathlib import Path
from dataclasses import dataclass, field

import libcst as cst

from .context import MigrationContext, NeedsWholeFile, needs_whole_file
from .findings import Finding, rule
from .markers import open_markers
from .names import CALLED_SUFFIX, ImportTable
from .source import _BUILT_WORDS, code_for_node, parse_module, print_code, print_with_spans
from .walk import walk

PARSE_ERROR = rule(
    "DM001", "parse-error", "error",
    "The file does not parse, is not UTF-8, or does not print back byte-identical; it is left untouched.",
    "A migration that cannot reproduce the file exactly could lose code, so the file is skipped.",
    fix="manual",
    suggestion="Fix the syntax error (or re-save the file as UTF-8) and run dali-migrate again.",
)
INTERNAL_ERROR = rule(
    "DM002", "internal-error", "error",
    "A migration pass failed on this file; it is left untouched.",
    "Never write a half-migrated file: the whole file is skipped and the failure is reported.",
    fix="manual",
    suggestion="Report the file to the dali-migrate maintainers; migrate it by hand meanwhile.",
)


def might_use_dali(text: str) -> bool:
    """Cheap text check before any parsing: a file that never says "dali" cannot import it."""
    return "dali" in text


@dataclass
class MigrationResult:
    path: str
    original: str
    migrated: str
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None
    uses_dali: bool = False
    # Project pipelines (qualnames) this module keeps in pipeline mode, with why: every module that shares
    # them keeps them too (api.migrate_paths).
    kept_pipelines: dict[str, tuple[str, str]] = field(default_factory=dict)  # as Project.kept
    # Functions of other modules this module's pipelines build with: {helper qualname: {pipeline qualnames}}.
    graph_helpers: dict[str, set] = field(default_factory=dict)
    # What it passes to imported functions and classes: {callee qualname: {argument: (kind, [qualnames])}}.
    foreign_calls: dict[str, dict] = field(default_factory=dict)
    # The run-time helper classes (EpochIterator, ReaderStream, Prefetch) the migrated module needs, imported from the
    # project's helper module (transforms/unroll/helpers.py; written into it only where that module cannot be written).
    helpers: list[str] = field(default_factory=list)
    # A file the run creates (the project's helper module): there was none before.
    created: bool = False
    # The project pipelines (qualnames) whose Project.kept entry this migration read: the ones it shares (imports,
    # defines, builds with its graph helpers, is given) and its class hierarchy's. When another module comes to keep
    # one of them, this module migrates again (api._agree_on_kept_units); no other kept pipeline changes its text.
    kept_reads: frozenset = frozenset()

    @property
    def changed(self) -> bool:
        return self.error is None and self.migrated != self.original

    @property
    def manual(self) -> list[Finding]:
        """What a person must do. A file with an error is that one error, not also a spot for a person."""
        return [] if self.error else [f for f in self.findings if not f.fixed]

    @property
    def status(self) -> str:
        if self.error:
            return "error"
        if self.manual:  # a file without DALI imports can still carry markers a person left open
            return "needs-attention"
        if self.created:
            return "created"
        if not self.uses_dali:
            return "no-dali"
        return "migrated" if self.changed else "clean"

    @property
    def reported(self) -> bool:
        """Whether reports list this file: it uses DALI, failed, or has findings (markers left open)."""
        return self.uses_dali or bool(self.error) or bool(self.findings)

    def diff(self, context: int = 3) -> str:
        if not self.changed:
            return ""
        old, new = diff_headers(self.path)
        if self.created:
            old = "/dev/null"
        return "".join(difflib.unified_diff(
            self.original.splitlines(keepends=True), self.migrated.splitlines(keepends=True),
            fromfile=old, tofile=new, n=context))

    def to_dict(self, with_code: bool = False) -> dict:
        d = {
            "path": self.path,
            "status": self.status,
            "changed": self.changed,
            "error": self.error,
            "findings": [f.to_dict() for f in self.findings],
        }
        if with_code:
            d["migrated"] = self.migrated
            d["diff"] = self.diff()
        return d


def diff_headers(path: str, suffix: str = "") -> tuple[str, str]:
    """git-style a/ b/ prefixes for the relative paths users pass; an absolute path stays as given."""
    if os.path.isabs(path):
        return path + suffix, path + suffix
    return f"a/{path}{suffix}", f"b/{path}{suffix}"


def migrate_source(source: str, path: str = "<string>", passes=None, project=None, *,
                   force: bool = False, helper_module: str | None = None) -> MigrationResult:
    """Migrate one module's text. Never raises for bad input: errors go into the result.

    ``project`` (``dali_migrate.project.Project``, optional): the pipelines other files define; a module
    that imports and uses one is migrated even when it does not import DALI itself.
    ``force`` runs every pass even on code without DALI (no text gate, no import gate, no
    ``applies``): robustness checks use it to drive the passes over unrelated real-world code.
    ``helper_module`` (a dotted module name): the module the migrated code imports its run-time helpers from
    (None: ``dali_dynamic_compat``; ``""``: none can be written, so they go into the module itself;
    ``api.migrate_paths`` decides; ``transforms/unroll/helpers.py``)."""
    if source.startswith(BOM):
        # libcst drops a UTF-8 byte-order mark; migrate what follows it and put it back.
        result = migrate_source(source[len(BOM):], path, passes, project, force=force, helper_module=helper_module)
        result.original = source
        result.migrated = BOM + result.migrated
        return result
    result = MigrationResult(path=path, original=source, migrated=source)
    if not force and not might_use_dali(source) and not (project and project.mentioned_in(source)) \
            and not (project is not None and project.concerns(path)):
        return result
    # Garbage collection is paused while one file migrates: a parse allocates tens of thousands of
    # nodes, and every few hundred start a cyclic collection that finds nothing (libcst trees hold no
    # cycles; everything is freed by reference counting as usual). It cost about a tenth of a
    # migration. The caller's setting is restored afterwards.
    collecting = gc.isenabled()
    gc.disable()
    try:
        result = _migrate_parsed(result, source, path, passes, force, project, helper_module=helper_module)
    except RecursionError:
        # Deeply nested code (long implicit string concatenations) exhausts libcst's recursion.
        return _fail(result, PARSE_ERROR.id, "too deeply nested for libcst (RecursionError)", 0)
    finally:
        if collecting:
            gc.enable()
    if result.error is not None and result.error.endswith(NOT_BYTE_IDENTICAL):
        head, tail = _comment_tail(source)
        if tail:
            # libcst drops comment lines that end a file at an indentation no block has (a dedented
            # "   # see https://..." after the last function): migrate the code before them and put them back.
            ahead = migrate_source(head, path, passes, project, force=force, helper_module=helper_module)
            if ahead.error is None:
                ahead.original, ahead.migrated, result = source, ahead.migrated + tail, ahead
    if result.error is None:
        # Markers already in the file stay open findings until a person removes them (DESIGN.md).
        found = open_markers(source, path, result.findings)
        if found:
            result.findings = sorted([*result.findings, *found], key=lambda f: (f.line, f.column, f.rule))
    return result


def _migrate_parsed(result: MigrationResult, source: str, path: str, passes, force: bool,
                    project=None, elide: bool = True, helper_module: str | None = None) -> MigrationResult:
    from . import elision as elision_module
    from .transforms import ELISION_TOGETHER, ELISION_WORDS, PASSES

    # Statements no pass can concern are left out of the (costly) libcst parse and put back after, where that may
    # leave out enough to pay for the split.
    elision = elision_module.elide(source, ELISION_WORDS, project, ELISION_TOGETHER) \
        if elide and not force and elision_module.worth_eliding(source, ELISION_WORDS, ELISION_TOGETHER) else None
    text = elision.text if elision else source

    def whole_file() -> MigrationResult:
        return _migrate_parsed(result, source, path, passes, force, project, elide=False,
                               helper_module=helper_module)

    try:
        module = parse_module(text)
    except cst.ParserSyntaxError as e:
        if elision:
            return whole_file()
        # Python's own parser locates syntax errors more precisely than libcst does.
        try:
            compile(source, path, "exec", flags=0x400, dont_inherit=True)  # ast.PyCF_ONLY_AST
        except SyntaxError as py:
            return _fail(result, PARSE_ERROR.id, f"does not parse: {py.msg}", py.lineno or 0, py.offset or 1)
        except (ValueError, RecursionError, MemoryError):
            pass
        return _fail(result, PARSE_ERROR.id, f"libcst cannot parse this file: {e.message}", e.raw_line,
                     e.raw_column + 1)
    # One codegen walk gives both the round-trip check and every node's position.
    printed, layout = print_with_spans(module)
    if printed != text:
        if elision:
            return whole_file()
        return _fail(result, PARSE_ERROR.id, NOT_BYTE_IDENTICAL, _first_difference(source, printed))
    imports = ImportTable.from_module(module)
    if not imports.uses_dali() and not force and not (project and project.imported_by(imports)) \
            and not (project is not None and project.concerns(path)):
        return result
    result.uses_dali = True
    ctx = MigrationContext(path=path, source=text, imports=imports, elision=elision, layout=layout,
                           positions=layout.starts)
    if project is not None:
        ctx.facts["project"] = project
    if helper_module is not None:  # (None: the default module; "": none, the helpers go inline)
        ctx.facts["helper_module"] = helper_module
    built = _BUILT_WORDS.set(ctx.built_words)
    try:
        module, ctx = _migrate_units(module, ctx, passes, force)
        migrated = print_code(module, layout)
    except NeedsWholeFile:
        return whole_file()
    except _Unwritable as e:
        return _fail(result, INTERNAL_ERROR.id, f"the migrated code failed its check and no unit could be kept "
                                                f"in pipeline mode instead: {e}", e.line)
    except RecursionError:
        return _fail(result, INTERNAL_ERROR.id, "too deeply nested to transform (RecursionError)", 0)
    except Exception as e:  # a pass bug must not lose or half-write user code
        return _fail(result, INTERNAL_ERROR.id, f"internal error: {type(e).__name__}: {e}", 0)
    finally:
        _BUILT_WORDS.reset(built)
    if elision:
        migrated = elision.restore(migrated)
        if migrated is None:  # a pass moved, repeated or changed a placeholder: do the file whole
            return whole_file()
    result.migrated = migrated
    result.findings = sorted(ctx.findings, key=lambda f: (f.line, f.column, f.rule))
    result.kept_pipelines = ctx.facts.get("kept_pipelines", {})
    result.graph_helpers = ctx.facts.get("graph_helpers", {})
    result.foreign_calls = ctx.facts.get("foreign_calls", {})
    result.kept_reads = frozenset(ctx.facts.get("kept_reads", ()))
    result.helpers = list(ctx.facts.get("helpers", []))
    return result


BOM = "\ufeff"
NOT_BYTE_IDENTICAL = "libcst does not print this file back byte-identical"


def _comment_tail(source: str) -> tuple[str, str]:
    """(code, tail): the lines that end ``source`` holding only comments or nothing, split off after the last
    line of code (whole lines; the code keeps its final newline)."""
    lines = source.splitlines(keepends=True)
    end = len(lines)
    while end and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
        end -= 1
    if end == 0 or not lines[end - 1].endswith(("\n", "\r")):
        return source, ""
    return "".join(lines[:end]), "".join(lines[end:])


class _Unwritable(Exception):
    def __init__(self, message: str, line: int):
        super().__init__(message)
        self.line = line


def _run_passes(module: cst.Module, ctx: MigrationContext, passes, force: bool) -> cst.Module:
    from .transforms import PASSES

    for migration_pass in passes if passes is not None else PASSES:
        if force or migration_pass.applies(ctx):
            module = migration_pass.run(module, ctx)
    return module


def _migrate_units(module: cst.Module, ctx: MigrationContext, passes, force: bool):
    """Run the passes over whole migration units (``units.py``): a unit with an escape, a marker, or a
    failed post-check (``postcheck.py``) stays in pipeline mode, untouched, and the passes run again from
    the original module (trees are immutable: nothing is parsed twice) until every migrated unit is
    clean. The kept units are marked. Returns the migrated module and the context of the last run."""
    from . import postcheck
    from .dataflow import DataFlow
    from .transforms.unroll import adapted as adapted_params
    from .dataflow import is_site
    from .units import CHECK_FAILED, VALUE_ESCAPES, Kept, Reason, Units, outputs_returned

    original = module
    start_aliases = dict(ctx.imports.aliases)  # passes add to the table: each run starts from this
    project = ctx.facts.get("project")
    from .files import module_name_of

    here = module_name_of(ctx.path)
    foreign = {}  # top-level functions here that other modules' pipelines build with
    seeds = {}  # top-level functions and classes here that other modules pass pipeline values to
    if project is not None:
        for helper, pipelines in project.graph_helpers.items():
            called = helper.endswith(CALLED_SUFFIX)  # its objects are called: ``Class.__call__`` in ``foreign``
            module_name, _, function = helper[:-len(CALLED_SUFFIX)].rpartition(".") if called else helper.rpartition(".")
            if module_name == here:
                foreign[function + CALLED_SUFFIX if called else function] = frozenset(pipelines)
        for callee, arguments in project.foreign_calls.items():
            module_name, _, name = callee.rpartition(".")
            if module_name == here:
                seeds[name] = {key: (kind, frozenset(origins)) for key, (kind, origins) in arguments.items()}
    wrappers = {}  # other modules' iterator wrappers this module imports (project.Project.iterator_wrappers)
    if project is not None and project.iterator_wrappers:
        for local, qualname in ctx.imports.aliases.items():
            keys = project.iterator_wrappers.get(project.resolve(qualname))
            if keys and qualname.rpartition(".")[0] != here:
                wrappers[qualname] = keys
    attributes = {}  # Pipeline subclasses imported from the project: what code here may read of their objects
    if project is not None:
        for local in ctx.imports.aliases:
            record = project.lookup(ctx.imports, local)
            if record is not None and record.attributes:
                attributes[local] = record.attributes

    last_made: list = []  # (adapted, flow): adapted.find's last trial is the model the module then gets

    def make_flow(adapted=None):
        if last_made and last_made[0] == adapted:
            return last_made[1]
        made = DataFlow(module, ctx.imports.copy(), extra_pipelines=_imported_pipelines(ctx), param_seeds=seeds,
                        iterator_wrappers=wrappers, adapted=adapted, imported_attributes=attributes)
        last_made[:] = [adapted, made]
        return made

    flow = make_flow()
    # pipelines given from elsewhere, adapted at run time (the module is the parse of ctx.source, untouched yet)
    adapted = adapted_params.find(module, flow, make_flow, ctx.source, ctx.may_mention)
    if adapted:
        flow = make_flow(adapted)
    follows = (lambda qualname: project.follows(qualname, here)) if project is not None and project.modules else None
    units = Units(flow, module, ctx.position, foreign, follows)
    # Values handed to a definition elision left out, or another module's seeds for one: read it all.
    needs_whole_file(ctx, {e.callee for e in units.escapes if e.callee} | units.handed_to | set(seeds)
                     | {name.removesuffix(CALLED_SUFFIX) for name in foreign})
    if project is not None and here in project.said_elsewhere:
        units.escapes += outputs_returned(flow, module, project.said_elsewhere[here])
    kept = Kept(units)
    for escape in [*units.escapes, *units.operator_escapes]:
        kept.keep(escape.origins, Reason(ctx.position(escape.node)[0], escape.rule, escape.message))
    for statement, rule_id, message in units.existing_markers:
        # A marker still in the file (from an earlier run) keeps its unit as it was until a person removes it.
        origins = units.pipelines(units.statement_origins.get(statement, frozenset()))
        if origins:
            kept.keep(origins, Reason(ctx.position(statement)[0], rule_id, message))
    shared = _project_pipelines(ctx, units, flow)  # origin here -> project qualname (defined here or imported)
    if project is not None:  # this module's operator sites, which it may hand to another module's functions
        shared.update({site: f"{here}.{site}" for site in flow.operator_sites.values()})
    shared.update({origin: origin for pipelines in foreign.values() for origin in pipelines})
    shared.update({origin: origin for arguments in seeds.values() for _, origins in arguments.values()
                   for origin in origins})
    for escape in units.followed:  # passed to another module of the run, which is told only of shared pipelines
        found = flow.value_of(escape.node)
        if not escape.origins <= shared.keys() or not _portable(found[0]):
            kept.keep(escape.origins, Reason(ctx.position(escape.node)[0], VALUE_ESCAPES.id, escape.message))
    for name, arguments in seeds.items():
        if name not in flow.seeded:  # not a def or class here: nothing learns what it gets
            for _, origins in arguments.values():
                kept.keep(origins, Reason(1, VALUE_ESCAPES.id, f"{name} is given pipeline values by other modules "
                                                              f"but is not a function or class defined here"))
    # Where another module's pipeline shows here: the helper it builds with, the function it is passed to.
    foreign_where = {origin: node for node, origins in units.helpers.items() for origin in origins
                     if origin in shared and origin not in units.definitions}
    foreign_where.update({origin: node for origin, node in units.foreign_values.items()
                          if origin in shared and origin not in foreign_where})
    foreign_where.update({origin: flow.seeded[name] for name, arguments in seeds.items() if name in flow.seeded
                          for _, origins in arguments.values() for origin in origins
                          if not is_site(origin)})  # (another module's operator: marked with the pipeline here)
    kept_here = {}  # pipelines this module keeps by its own reasons: the passes find (and mark) them again
    kept_sites = {}  # this module's operators that another module's kept pipeline calls -> where they are named
    # In the origins' order, not the shared table's: that follows the iteration of sets that came from other
    # processes (a set rebuilt by pickling may iterate in another order), and the first origin kept gives its reason
    # to the rest of its unit: -j 1 and -j 2 runs must write the same markers.
    for origin, qualname in sorted(shared.items()):
        if project is None or qualname not in project.kept:
            continue
        keeper, why = project.kept[qualname]
        statement = units.definitions.get(origin) or foreign_where.get(origin) or _import_of(module, origin) \
            or _site_statement(units, origin)
        line = ctx.position(statement)[0] if statement is not None else 1
        if keeper == here:
            kept_here[origin] = Reason(line, UNIT_KEPT_HERE, f"{_origin_name(origin)} {why}")
            continue
        kept.keep({origin}, Reason(line, UNIT_KEPT_HERE, f"{_origin_name(origin)} stays in pipeline mode with "
                                                          f"the rest of its unit, in another module: {why}"))
        if is_site(origin) and statement is not None:
            kept_sites[origin] = statement  # an operator given to that module's pipeline: marked where it is named
    if project is not None and project.kept:
        _mark_kept_helper_calls(ctx, units, kept, shared, project, here)
    kept_reads = set(shared.values())  # (with what the passes read of a class hierarchy's, each attempt)
    undefined_before: set[str] | None = None
    first = ctx
    for attempt in range(len(units.all_origins()) + 2):
        if attempt:
            kept_reads |= ctx.facts.get("kept_reads", set())
            ctx = _fresh_context(first, start_aliases)
        ctx.facts["flow"] = flow
        ctx.facts["units"] = units
        ctx.kept = kept.origins
        ctx.kept_statements = units.kept_statements(kept.origins)
        module = _run_passes(original, ctx, passes, force)
        grew = False
        before = kept.origins
        for finding in ctx.findings:
            if finding.fixed or not finding.line:
                continue
            origins = units.pipelines(units.origins_at(finding.line))
            if origins - before:  # every marker of a unit found in this run is one of its reasons
                grew |= kept.keep(origins, Reason(finding.line, finding.rule, finding.message, dict(finding.extra)))
        # Checked whenever ndd code was written, a pipeline unrolled or not (a rename alone can hand a
        # pipeline-mode DataNode to an ndd operator).
        if not grew and (ctx.facts.get("migrated_origins") is not None or ctx.facts.get("uses_ndd")) \
                and passes is None:
            if undefined_before is None:
                undefined_before = set(postcheck.undefined_names(original, flow))
            imported = {local: project.pipelines[q] for local, q in shared.items() if local not in units.definitions
                        and local not in kept.origins and _generator_style(project, q)}
            for violation in postcheck.check(module, ctx.facts.get("migrated_origins") or {}, kept.origins,
                                             known_undefined=undefined_before, positioned=ctx.positions,
                                             imported_generators=imported, model=flow):
                line = ctx.position(violation.statement)[0] if violation.statement is not None else 0
                # (the check reads the migrated module: its operator sites are not this model's, only pipelines)
                at = units.pipelines(violation.origins) or units.pipelines(units.origins_at(line))
                origins = at - kept.origins
                if not origins and not at & kept.origins:
                    origins = units.pipelines(units.all_origins()) - kept.origins  # nothing to pin it on: all
                    if not origins:  # nor any unit left: keep the top-level statement where it failed
                        adopted = units.adopt(line)
                        if adopted is None:
                            raise _Unwritable(violation.message, line)
                        origins = {adopted}
                if origins:
                    grew |= kept.keep(origins, Reason(line, CHECK_FAILED.id, violation.message))
        if not grew:
            # Other modules were told this module keeps these: it must, even where this run alone would not.
            for origin, reason in kept_here.items():
                if origin not in kept.origins:
                    grew |= kept.keep({origin}, reason)
        if not grew:
            break
    _report_handed_on(ctx, units, kept.origins)
    _report_missing_attributes(ctx, units, kept.origins)
    if kept.origins:
        # A pipeline imported from another module is marked where it is imported.
        definitions = {**{o: _import_of(original, o) for o in shared if o not in units.definitions},
                       **foreign_where, **kept_sites, **units.definitions}
        module = _annotate_kept(module, ctx, units, kept, definitions, flow.with_origin)
    ctx.facts["kept_reads"] = kept_reads | ctx.facts.get("kept_reads", set())
    ctx.facts["graph_helpers"] = _graph_helpers(flow, ctx, shared) if project is not None else {}
    ctx.facts["foreign_calls"] = _foreign_calls(units, ctx, shared) if project is not None else {}
    ctx.facts["kept_pipelines"] = {
        qualname: (here, f"in {here}, line {reasons[0].line}: {reasons[0].message}")
        for origin, qualname in shared.items() if (reasons := kept.reasons.get(origin))}
    # a class hierarchy across modules kept here: its base or subclasses in other modules stay with it
    for qualname, why in ctx.facts.get("classes_kept", {}).items():
        ctx.facts["kept_pipelines"].setdefault(qualname, why)
    for qualname, why in _hierarchy_classes_unchanged(original, module, project, here).items():
        ctx.facts["kept_pipelines"].setdefault(qualname, why)
    return module, ctx


UNIT_KEPT_HERE = "DM230"


def _mark_kept_helper_calls(ctx: MigrationContext, units, kept, shared: dict, project, here: str) -> None:
    """A value passed to a function or class of another module that keeps its pipeline in pipeline mode: the call here
    is a reason of the unit (HELPER_KEPT), so the calling file says which helper its pipeline stays for."""
    from .units import HELPER_KEPT, Reason

    for escape in units.followed:
        callee = project.resolve(escape.callee or "")
        module = callee.rpartition(".")[0]
        for origin in sorted(escape.origins):
            keeper, why = project.kept.get(shared.get(origin, ""), (None, ""))
            if keeper is not None and keeper == module and keeper != here:
                what = escape.message.split(" is passed to ", 1)[0]
                kept.keep(escape.origins, Reason(ctx.position(escape.node)[0], HELPER_KEPT.id,
                                                 f"{what} is passed to {callee}(), which keeps it in pipeline mode: "
                                                 f"{why}"))
                break


def _unmarked_text(node: cst.CSTNode) -> str:
    text = cst.Module(body=[node.with_changes(leading_lines=[])]).code
    return "\n".join(line for line in text.splitlines() if not line.strip().startswith("# dali-migrate:"))


def _hierarchy_classes_unchanged(original: cst.Module, module: cst.Module, project, here: str) -> dict:
    """The classes of this module in a hierarchy across modules (``Project.pipeline_classes``) that this run left as
    they were (kept by whatever kept them: a marker, the check): every migrated one changes (a ReaderStream base, a
    steps() generator), so an unchanged one stays in pipeline mode, and its base or subclasses elsewhere with it."""
    if project is None or not getattr(project, "pipeline_classes", None):
        return {}
    mine = [r for r in project.pipeline_classes.values() if r.module == here and (
        project.foreign_base(r.module, r.name) is not None or project.foreign_subclasses(r.module, r.name))]
    if not mine:
        return {}
    before = {s.name.value: s for s in original.body if isinstance(s, cst.ClassDef)}
    after = {s.name.value: s for s in module.body if isinstance(s, cst.ClassDef)}
    found = {}
    for record in mine:
        old, new = before.get(record.name), after.get(record.name)
        if old is None or new is None or _unmarked_text(old) != _unmarked_text(new):
            continue
        related = [r.qualname for r in project.foreign_subclasses(record.module, record.name)]
        base = project.foreign_base(record.module, record.name)
        if base is not None:
            related.append(base.qualname)
        for qualname in [record.qualname, *related]:
            found.setdefault(qualname, (here, f"in {here}: {record.name} stays in pipeline mode"))
    return found


def _report_handed_on(ctx: MigrationContext, units, kept: frozenset) -> None:
    """An info finding where a migrated framework iterator goes to code the tool does not follow."""
    from .transforms.unroll.epoch_iterator import CLASS_NAME
    from .units import ITERATOR_HANDED_ON

    for handed in units.handed_on:
        if handed.origins and not handed.origins & kept:
            where = handed.message.split(" is passed to ", 1)[-1].split(", which", 1)[0]
            ctx.report(ITERATOR_HANDED_ON.id, f"{code_for_node(handed.node)} (a DALI framework iterator, migrated to "
                       f"{CLASS_NAME}) is handed to {where}: it offers the plugin iterator's public API, so that code "
                       f"computes the same if it uses only that API (and no isinstance check on the plugin class)",
                       handed.node)


def _report_missing_attributes(ctx: MigrationContext, units, kept: frozenset) -> None:
    """An info finding where code reads an attribute of a migrated framework iterator that the plugin's iterator did
    not have either (``it.shutdown()``): it raised AttributeError there before, and does after."""
    from .transforms.unroll.epoch_iterator import CLASS_NAME
    from .units import ITERATOR_NAME_MISSING

    for missing in units.missing:
        node = missing.node
        if missing.origins & kept:
            continue  # the iterator stays the plugin's: nothing changes there
        ctx.report(ITERATOR_NAME_MISSING.id, f"{code_for_node(node)}: the plugin's iterator has no `.{node.attr.value}`"
                   f" (the original raises AttributeError here) and the migrated one ({CLASS_NAME}) has none either: "
                   f"left as it is, it raises AttributeError at the same line", node)


def _graph_helpers(flow, ctx: MigrationContext, shared: dict) -> dict[str, set[str]]:
    """Functions of other modules that this module's pipelines build their graphs with (a graph helper
    imported from ``augment``): ``{helper qualname: {pipeline qualnames}}``. The helper's module migrates it
    with those pipelines' units (``api.migrate_paths``)."""
    found: dict[str, set[str]] = {}
    project = ctx.facts["project"]
    for call, origin in flow.graph_origin.items():
        if origin not in shared:
            continue
        qualname = ctx.imports.qualname(call.func)
        if qualname is not None:
            if not qualname.startswith("nvidia."):
                found.setdefault(project.resolve(qualname), set()).add(shared[origin])
            continue
        # an object of another module's class called in the graph (an augmentation made in __init__): its __call__
        for maker in flow.imported_makers(call.func):
            found.setdefault(project.resolve(maker) + CALLED_SUFFIX, set()).add(shared[origin])
    return found


def _foreign_calls(units, ctx: MigrationContext, shared: dict) -> dict:
    """What this module passes to functions and classes imported from elsewhere (maybe the project's):
    ``{callee qualname: {position or keyword: (kind, [pipeline qualnames])}}``, the kinds the other module
    can read (no node of this module in them)."""
    from .dataflow import join_kind

    project = ctx.facts["project"]
    found: dict = {}
    for callee, key, (kind, origins) in units.foreign_calls:
        names = [shared[o] for o in origins if o in shared]
        if not names or not _portable(kind):
            continue
        entry = found.setdefault(project.resolve(callee), {})
        old_kind, old_names = entry.get(key, (None, []))
        entry[key] = (join_kind(old_kind, kind), sorted(set(old_names) | set(names)))
    return found


def _portable(kind) -> bool:
    if isinstance(kind, str):
        return True
    return isinstance(kind, tuple) and all(_portable(k) for k in kind)


def _import_of(module: cst.Module, local: str):
    """The top-level import statement that binds ``local``, if any."""
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                    for alias in small.names:
                        bound = alias.asname.name if alias.asname else alias.name
                        if isinstance(bound, cst.Name) and bound.value == local:
                            return statement
    return None


def _project_pipelines(ctx: MigrationContext, units, flow) -> dict[str, str]:
    """The origins of this module that other modules can share: ``{origin: qualname}`` for the pipelines
    it imports from the project and the top-level pipelines and factories it defines."""
    project = ctx.facts.get("project")
    if project is None:
        return {}
    from .files import module_name_of

    found = {}
    for local in ctx.imports.aliases:
        if project.lookup(ctx.imports, local) is not None:
            found[local] = project.qualname_of(ctx.imports, local)
    module = module_name_of(ctx.path)
    for origin, statement in units.definitions.items():
        name = origin[1:] if origin.startswith(":") else origin
        if "." not in name and ":" not in name and statement in units.top_level:
            found.setdefault(origin, f"{module}.{name}")
        else:  # a pipeline other modules cannot import, but may get passed
            found.setdefault(origin, f"{module}.{origin}")
    # A factory's pipelines go by the factory's name; in the file's order, so that where two factories return pipelines
    # of one origin (inner defs of the same name), the same one names it in every run (``units.top_level`` is a set of
    # nodes, whose order follows their addresses: it had made a whole-tree run name the other one now and then).
    for statement in flow.module.body:
        qualname = f"{module}.{statement.name.value}" if isinstance(statement, cst.FunctionDef) else None
        if qualname in project.pipelines:
            returned = flow._returns.get(statement)
            for origin in returned[1] if returned is not None else ():
                found[origin] = qualname
    return found


def _generator_style(project, qualname: str) -> bool:
    pipeline = project.pipelines.get(qualname) if project is not None else None
    return pipeline is not None and pipeline.style in ("def", "factory")


def _imported_pipelines(ctx: MigrationContext) -> dict[str, str]:
    """Local names of the pipelines this module imports from the project (their origins here)."""
    project = ctx.facts.get("project")
    if not project:
        return {}
    found = {local: local for local in ctx.imports.aliases if project.lookup(ctx.imports, local) is not None}
    # this module's subclasses of another module's Pipeline class (a hierarchy across modules): pipelines here
    from .files import module_name_of

    here = module_name_of(ctx.path)
    for record in getattr(project, "pipeline_classes", {}).values():
        if record.module == here and project.foreign_base(here, record.name) is not None:
            found.setdefault(record.name, record.name)
    return found


def _fresh_context(first: MigrationContext, aliases: dict) -> MigrationContext:
    imports = ImportTable()
    imports.aliases = dict(aliases)
    imports.plain_imports = set(first.imports.plain_imports)
    ctx = MigrationContext(path=first.path, source=first.source, imports=imports, elision=first.elision,
                           layout=first.layout, positions=first.positions, built_words=first.built_words)
    for fact in ("project", "helper_module"):
        if fact in first.facts:
            ctx.facts[fact] = first.facts[fact]
    return ctx


def _annotate_kept(module: cst.Module, ctx: MigrationContext, units, kept, where: dict,
                  with_origin: dict) -> cst.Module:
    """Markers on the kept units: each pipeline's definition says that it stays in pipeline mode and why,
    and each place that decided it carries its own marker. Kept statements are the original nodes (no pass
    touched them), found again by identity."""
    from .dataflow import is_site, site_module, site_operator
    from .findings import marker_text
    from .units import UNIT_KEPT

    markers: dict[cst.CSTNode, list[str]] = {}

    def add(statement, rule_id: str, message: str, line: int, extra=None) -> None:
        markers.setdefault(statement, []).append(marker_text(rule_id, message))
        finding = Finding(rule=rule_id, message=" ".join(message.split()), path=ctx.path, line=line,
                          column=ctx.position(statement)[1], fixed=False)
        finding.extra.update(extra or {})
        ctx.findings.append(finding)

    for origins, reasons in kept.groups():
        definitions = {}
        for o in sorted(origins):  # (sorted: a statement several origins share is named by the first, in every run)
            if where.get(o) is not None:
                definitions.setdefault(where[o], o)
        names = sorted(_origin_name(o) for o in origins if not is_site(o))  # (an operator's site is no pipeline)
        elsewhere = [r for r in sorted(reasons, key=lambda r: r.line) if r.rule != UNIT_KEPT.id
                     and units.statement_at(r.line) not in definitions]
        summary = "; ".join(f"line {r.line}: {r.message}" for r in elsewhere[:3])
        if len(elsewhere) > 3:
            summary += f"; and {len(elsewhere) - 3} more"
        for reason in sorted(reasons, key=lambda r: (r.line, r.rule, r.message)):  # (ties: the same in every run)
            statement = units.statement_at(reason.line)
            if statement is None or reason.rule == UNIT_KEPT.id:  # unit markers are written anew below
                continue
            if any(text.split(" ", 3)[2] == reason.rule for text in markers.get(statement, ())):
                continue
            add(statement, reason.rule, reason.message, reason.line, reason.extra)
        for helper, helped in units.helpers.items():
            # A lambda graph helper has no name and no line of its own: its pipeline's marker covers it.
            if helped & origins and helper not in definitions and isinstance(helper, cst.FunctionDef):
                pipelines = ", ".join(sorted(_origin_name(o) for o in helped))
                add(helper, UNIT_KEPT.id, f"{helper.name.value} builds part of {pipelines}, which stays in pipeline "
                                          f"mode with everything that uses it: {summary or 'see its definition'}",
                    ctx.position(helper)[0])
        for block, origin in with_origin.items():  # the flow model's `with pipe:` blocks -> their pipeline
            # the graph of a kept `with pipe:` pipeline is pipeline-mode code too: marked where it is written
            if origin in origins and block not in definitions and block not in markers:
                add(block, UNIT_KEPT.id, f"the graph of {_origin_name(origin)}, which stays in pipeline mode with "
                                         f"everything that uses it: {summary or 'see its definition'}",
                    ctx.position(block)[0])
        covered = None
        flow = ctx.facts.get("flow")
        made_at = {o: n for n, o in flow.operator_sites.items()} if flow is not None else {}
        for origin in sorted(o for o in origins if is_site(o)):
            # an ops object made, or an operator named, outside the definitions (a module's statement, a plain
            # class's __init__, a test's table): left as it was with the unit, marked where it is, unless a marked
            # definition or helper holds that line
            node = made_at.get(origin)
            statement = units.statement_at(ctx.position(node)[0]) if node is not None else None
            if statement is None or statement in markers or statement in definitions or site_module(origin):
                continue
            if covered is None:
                covered = _statements_under([*definitions, *(h for h in markers if not isinstance(
                    h, cst.SimpleStatementLine))])
            if statement in covered:
                continue
            pipelines = ", ".join(names) or "a pipeline"
            what = "an ops object" if site_operator(origin).startswith("ops.") else "as it is"
            add(statement, UNIT_KEPT.id, f"{site_operator(origin)}(...) is called by {pipelines}, which stays in "
                                         f"pipeline mode with everything that uses it, so it stays {what}: "
                                         f"{summary or 'see its definition'}", ctx.position(statement)[0])
        for statement, origin in sorted(definitions.items(), key=lambda item: item[1]):
            own = [r for r in reasons if units.statement_at(r.line) is statement and r.rule != UNIT_KEPT.id]
            if own and not elsewhere and len(definitions) == 1:
                continue  # its own marker says it all
            earlier = [r for r in reasons if r.rule == UNIT_KEPT.id and units.statement_at(r.line) is statement]
            if earlier and not elsewhere and not own:  # only the marker an earlier run wrote: keep its words
                add(statement, UNIT_KEPT.id, earlier[0].message, ctx.position(statement)[0])
                continue
            others = [n for n in names if n != _origin_name(origin)]
            together = f" (one unit with {', '.join(others)})" if others else ""
            why = summary or "; ".join(f"line {r.line}: {r.message}" for r in reasons[:3] if r.rule != UNIT_KEPT.id)
            add(statement, UNIT_KEPT.id, f"{_origin_name(origin)} stays in pipeline mode with everything that "
                                         f"uses it{together}: {why}", ctx.position(statement)[0])
    if not markers:
        return module
    from .walk import transform

    return transform(module, _AttachMarkers(markers, ctx.facts.get("same_statements", {})), layout=False)


class _AttachMarkers(cst.CSTTransformer):
    """Marker comments onto given statements (by identity), wherever they are; ``same``: a statement a pass gave only
    blank lines (a kept unit's, below a helper class written above it) -> the statement it was."""

    def __init__(self, markers: dict, same: dict | None = None):
        super().__init__()
        self.markers = markers
        self.same = same or {}

    def on_visit(self, node):
        return not isinstance(node, (cst.SimpleStatementLine, cst.BaseExpression))

    def on_leave(self, original_node, updated_node):
        from .transforms.base import _attach_markers

        texts = self.markers.get(original_node) or self.markers.get(self.same.get(original_node))
        return _attach_markers(updated_node, texts) if texts else updated_node


def _origin_name(origin: str) -> str:
    """``pipe`` for a @pipeline_def or class, ``pipe`` for a ``with pipe:`` pipeline (``scope:pipe``), ``fn.flip`` for
    an operator's site."""
    from .dataflow import is_site, site_operator

    return site_operator(origin) if is_site(origin) else origin.rpartition(":")[2]


class _SimpleStatements(cst.CSTVisitor):
    """The simple statements under a node. (A module-level class: one made in a function, with a closure over its
    set, is a reference cycle that would keep the tree alive until the collector ran.)"""

    def __init__(self):
        super().__init__()
        self.found: set = set()

    def visit_SimpleStatementLine(self, node):
        self.found.add(node)
        return False


def _statements_under(nodes) -> set:
    """The simple statements inside ``nodes`` (definitions and helpers a marker covers)."""
    collect = _SimpleStatements()
    for node in nodes:
        walk(node, collect)  # read-only (libcst's visit rebuilds every node)
    return collect.found


def _site_statement(units, origin: str):
    """The innermost statement that names the operator of site ``origin`` (its marker goes there)."""
    from .dataflow import is_site

    if not is_site(origin):
        return None
    found = [s for s, origins in units.statement_origins.items() if origin in origins]
    return next((s for s in found if isinstance(s, cst.SimpleStatementLine)), found[0] if found else None)


def _first_difference(a: str, b: str) -> int:
    """1-based line of the first difference between two texts."""
    for number, (line_a, line_b) in enumerate(zip(a.splitlines(True), b.splitlines(True)), start=1):
        if line_a != line_b:
            return number
    return min(a.count("\n"), b.count("\n")) + 1


def _fail(result: MigrationResult, rule_id: str, message: str, line: int, column: int = 1) -> MigrationResult:
    result.error = f"line {line}: {message}" if line else message
    result.migrated = result.original
    result.findings = [Finding(rule=rule_id, message=message, path=result.path, line=line, column=column,
                               fixed=False)]
    return result
