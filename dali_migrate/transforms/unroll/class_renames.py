"""Methods of a Pipeline class hierarchy named like define_graph (``base_define_graph``, a helper its subclasses'
define_graph call): once define_graph is ``steps()`` they compute one step's outputs, so ``step`` replaces
``define_graph`` in their names and in their calls across the hierarchy, unless the new name is taken (by the
hierarchy or by what ReaderStream defines)."""

from __future__ import annotations

import ast
import functools

import libcst as cst

from ...walk import transform
from . import rules, stream
from .class_common import _STREAM_ATTRIBUTES, _methods
from .class_hierarchy import _hierarchy
from .helpers import class_source
from .model import PipelineDesc

GRAPH_WORD, STEP_WORD = "define_graph", "step"


@functools.cache  # (the class's text is the package's: parsed once per process, not per Pipeline class)
def _stream_attributes() -> frozenset[str]:
    """What the ReaderStream class defines (its methods and class attributes): a migrated class derives from it."""
    tree = ast.parse(class_source(stream.CLASS_NAME))
    names = set(_STREAM_ATTRIBUTES)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            names.add(node.attr)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return frozenset(names)


def _graph_helper_names(classes, attributes: set[str]) -> tuple[dict[str, str], dict[str, str]]:
    """({old: new}, {old: the name that was taken}) for the hierarchy's methods named like define_graph
    (``base_define_graph``, a helper its subclasses' define_graph call): ``step`` replaces ``define_graph`` in
    the name, since the helper now computes one step's outputs and no graph is defined. A new name that some
    attribute or method of the hierarchy (ReaderStream's included) already has keeps the old name."""
    methods = set()
    for cls in classes:
        methods |= set(_methods(cls))
    taken = methods | attributes | _stream_attributes()
    renames, kept = {}, {}
    for old in sorted(methods):
        if GRAPH_WORD not in old or old == GRAPH_WORD:
            continue
        new = old.replace(GRAPH_WORD, STEP_WORD)
        if new in taken or new in renames.values():
            kept[old] = new
        else:
            renames[old] = new
    return renames, kept


class _GraphHelperCalls(cst.CSTTransformer):
    """The renamed methods: their ``def`` in the class body, and ``self.X``/``super().X``/``super(C, self).X``/
    ``C.X`` for a class C of the hierarchy."""

    def __init__(self, renames: dict[str, str], class_names: set[str]):
        super().__init__()
        self.renames = renames
        self.class_names = class_names
        self.depth = 0

    def visit_ClassDef(self, node):
        self.depth += 1

    def leave_ClassDef(self, original_node, updated_node):
        self.depth -= 1
        return updated_node

    def leave_FunctionDef(self, original_node, updated_node):
        if original_node.name.value in self.renames and self.depth <= 1:
            return updated_node.with_changes(name=cst.Name(self.renames[original_node.name.value]))
        return updated_node

    def leave_Attribute(self, original_node, updated_node):
        if updated_node.attr.value not in self.renames:
            return updated_node
        owner = updated_node.value
        if (isinstance(owner, cst.Name) and owner.value in {"self", *self.class_names}) or (
                isinstance(owner, cst.Call) and isinstance(owner.func, cst.Name) and owner.func.value == "super"):
            return updated_node.with_changes(attr=cst.Name(self.renames[updated_node.attr.value]))
        return updated_node


def _rename_graph_helpers(unroller, desc: PipelineDesc, original: cst.ClassDef, body: list) -> list:
    renames, kept = desc.extra["renames"], desc.extra["renames_kept"]
    own = _methods(original)
    for old, new in renames.items():
        if old in own:
            unroller.report(rules.GRAPH_HELPER_RENAMED.id, f"{desc.name}.{old} -> {new}: it computes one step's "
                            f"outputs now (define_graph became steps()), and the calls in the migrated classes "
                            f"follow; code in modules not migrated with it that calls {old} must use {new}", own[old])
    for old, new in kept.items():
        if old in own:
            unroller.report(rules.GRAPH_HELPER_RENAMED.id, f"{desc.name}.{old} keeps its name: {new} is already an "
                            f"attribute of the class hierarchy", own[old])
    if not renames:
        return body
    chain, subclasses = _hierarchy(unroller, original)
    rename = _GraphHelperCalls(renames, {c.name.value for c in [*chain, *subclasses]})
    return [transform(statement, rename, layout=False) for statement in body]
