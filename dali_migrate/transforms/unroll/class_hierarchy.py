"""The class hierarchy of a Pipeline subclass: its bases and its subclasses, in this module and in other modules of
the run (read from the project's pre-scan), the import table each class is read with, the checks that make a
hierarchy across modules migrate alike on both sides or stay on both, and the instances of a class without
define_graph that this module fills with ``with pipe:``."""

from __future__ import annotations

import libcst as cst

from ...walk import walk
from ...files import module_name_of
from .class_common import _methods
from .model import CannotUnroll, NameReads

def filled_instances(unroller, class_name: str) -> list[str]:
    """The names bound to ``class_name(...)`` in this module and filled with ``with <name>:`` (a Pipeline subclass
    used as a plain Pipeline), when no class of its chain or its subclasses here defines define_graph."""
    node = unroller.d.classes.get(class_name)
    if node is None:
        return []
    chain, subclasses = _chain(unroller, node), [c for c in unroller.d.classes.values() if node in _chain(unroller, c)]
    if any("define_graph" in _methods(c) for c in {*chain, *subclasses}):
        return []
    return sorted({key.split(":", 1)[1] for key, (kind, func, _) in unroller.d.pipe_vars.items()
                   if kind == "call" and func == class_name and key.split(":", 1)[1] in unroller.d.with_names})


def _chain(unroller, node: cst.ClassDef) -> list[cst.ClassDef]:
    """The class and its Pipeline-subclass ancestors in this module, nearest first, ending with the one that
    derives from Pipeline itself; or ending with a Pipeline class of another module of the run, read from its
    text there (``_foreign_node``: a hierarchy across modules, capability 2), which derives from Pipeline itself."""
    classes = unroller.d.classes
    chain = [node]
    while True:
        parent = next((classes[b.value.value] for b in chain[-1].bases if isinstance(b.value, cst.Name)
                       and classes.get(b.value.value) is not None and classes[b.value.value] not in chain), None)
        if parent is None:
            foreign = unroller.d.foreign_bases.get(chain[-1].name.value) if classes.get(
                chain[-1].name.value) is chain[-1] else None
            if foreign is not None:
                chain.append(_foreign_node(unroller, foreign[1]))
            return chain
        chain.append(parent)


def _foreign_node(unroller, record) -> cst.ClassDef:
    """The ClassDef of a Pipeline class of another module of the run (``ProjectClass``), parsed once; only one that
    derives from Pipeline itself."""
    nodes = unroller.__dict__.setdefault("_foreign_nodes", {})
    if record.qualname not in nodes:
        from ...names import _PIPELINE_NAMES

        if not all(base in _PIPELINE_NAMES for base in record.bases):
            raise CannotUnroll(f"its base class {record.qualname} (module {record.module}) does not derive from "
                               f"Pipeline itself: a hierarchy across more than two modules is not migrated")
        node = cst.parse_module(record.source).body[0]
        nodes[record.qualname] = node
        unroller.__dict__.setdefault("_foreign_records", {})[node] = record
    return nodes[record.qualname]


def _imports_of(unroller, cls: cst.ClassDef):
    """The import table a class of the hierarchy is read with: this module's, or, for a class of another module
    of the run, that module's (``ProjectClass.aliases``)."""
    record = unroller.__dict__.get("_foreign_records", {}).get(cls)
    if record is None:
        return unroller.ctx.imports
    from ...names import ImportTable

    table = ImportTable()
    table.aliases = dict(record.aliases)
    return table


def _foreign_subclass_nodes(unroller, node: cst.ClassDef) -> list[cst.ClassDef]:
    """The Pipeline classes of other modules of the run that derive from ``node`` (a class of this module)."""
    project = unroller.ctx.facts.get("project")
    if not project or not project.pipeline_classes or unroller.d.classes.get(node.name.value) is not node:
        return []
    found = []
    nodes = unroller.__dict__.setdefault("_foreign_nodes", {})
    for record in project.foreign_subclasses(module_name_of(unroller.ctx.path), node.name.value):
        if "<nested>" in record.qualname:
            raise CannotUnroll(f"a subclass of it is defined inside a function or class of module {record.module} "
                               f"({record.name}): it would not migrate with it", node)
        if record.qualname not in nodes:
            nodes[record.qualname] = cst.parse_module(record.source).body[0]
            unroller.__dict__.setdefault("_foreign_records", {})[nodes[record.qualname]] = record
        found.append(nodes[record.qualname])
    return found


def _hierarchy(unroller, node: cst.ClassDef) -> tuple[list[cst.ClassDef], list[cst.ClassDef]]:
    """(``_chain``; the classes that derive from this one: the module's, and those of other modules of the run)."""
    return _chain(unroller, node), [c for c in unroller.d.classes.values() if node in _chain(unroller, c)[1:]] + \
        _foreign_subclass_nodes(unroller, node)


def _across_modules(unroller, node: cst.ClassDef, chain, subclasses) -> None:
    """A hierarchy across modules of the run migrates on both sides alike, or stays in pipeline mode on both: the
    define_graph of another module migrated here is read with this module's imports, so every name it reads that
    an import there binds must be bound here alike (``_kept_elsewhere``: a class the other side keeps)."""
    records = unroller.__dict__.get("_foreign_records", {})
    if not any(c in records for c in [*chain, *subclasses]):
        return
    aliases = unroller.ctx.imports.aliases
    methods = {}
    for cls in reversed(chain):
        methods.update({name: cls for name in _methods(cls)})
    for cls in chain:
        record = records.get(cls)
        if record is None or methods.get("define_graph") is not cls:
            # its __init__ and reader makers are read with its own module's imports (``_imports_of``), its other
            # methods run there unchanged; a define_graph of its own, whose steps this class yields, is migrated
            # here, with this module's imports
            continue
        theirs = dict(record.aliases)
        reads = NameReads()
        walk(_methods(cls)["define_graph"], reads)
        for name in sorted(reads.names):
            if name in theirs and aliases.get(name) != theirs[name]:
                raise CannotUnroll(f"its base class {record.qualname} reads {name} ({theirs[name]} in module "
                                   f"{record.module}), which this module does not import alike", node)


def _kept_elsewhere(unroller, node: cst.ClassDef, chain, subclasses) -> None:
    """A class of a hierarchy across modules that another module of the run keeps in pipeline mode keeps this one
    (checked last: this class's own reasons, where it has some, are the ones its marker gives)."""
    records = unroller.__dict__.get("_foreign_records", {})
    if not any(c in records for c in [*chain, *subclasses]):
        return
    project = unroller.ctx.facts["project"]
    here = module_name_of(unroller.ctx.path)
    for cls in [node, *chain, *subclasses]:
        qualname = records[cls].qualname if cls in records else f"{here}.{cls.name.value}"
        unroller.ctx.facts.setdefault("kept_reads", set()).add(qualname)  # (this module migrates again if it changes)
        kept = project.kept.get(qualname)
        if kept is not None and kept[0] != here:  # (kept by another module of the run: its uses there stay)
            raise CannotUnroll(f"its class hierarchy spans modules, and {qualname} {kept[1]}", node)
