"""What reading and writing a Pipeline subclass share: the names of what a migrated class (a ReaderStream) defines
and of the options its steps read, small readers of a class's nodes (its methods, the ``self.<attr>`` it reads and
assigns), and the transformer that replaces whole statements of a method (``_InitRewrite``)."""

from __future__ import annotations

import libcst as cst

from ...walk import walk

STEPS_METHOD = "steps"  # the generator ReaderStream.__next__ starts (dali_migrate/runtime/reader_stream.py)
OPTIONS_METHOD = "_pipeline_options"  # ReaderStream's: the options a super().__init__(*args, **kwargs) forwarded
_STREAM_ATTRIBUTES = (STEPS_METHOD, "_steps", "_readers", "_dali_pipeline", OPTIONS_METHOD)  # what ReaderStream defines
# the options a migrated class's steps read (``self.<name>``), set by its __init__
_STEP_OPTIONS = ("batch_size", "num_threads", "device_id", "seed")


def _methods(node: cst.ClassDef):
    return {s.name.value: s for s in node.body.body if isinstance(s, cst.FunctionDef)}


def _normalise_commas(call: cst.Call) -> cst.Call:
    args = list(call.args)
    fixed = []
    for i, a in enumerate(args):
        if i < len(args) - 1:
            if not isinstance(a.comma, cst.Comma):
                a = a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        else:
            a = a.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        fixed.append(a)
    return call.with_changes(args=fixed)


class _SelfTargets(cst.CSTVisitor):
    """Attributes of self assigned inside define_graph (self.jpegs, self.labels = ...)."""

    def __init__(self):
        self.names: set[str] = set()

    def visit_AssignTarget(self, node):
        self._collect(node.target)

    def _collect(self, target):
        if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
            self.names.add(target.attr.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for e in target.elements:
                self._collect(e.value)


class _AttrUses(cst.CSTVisitor):
    def __init__(self, attr):
        self.attr, self.count = attr, 0

    def visit_Attribute(self, node):
        if _self_attr(node) == self.attr:
            self.count += 1

    @classmethod
    def count_in(cls, node, attr) -> int:
        uses = cls(attr)
        walk(node, uses)
        return uses.count


def _self_attr(node) -> str | None:
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return node.attr.value
    return None


class _SelfAttributes(cst.CSTVisitor):
    def __init__(self):
        self.names: set[str] = set()

    def visit_Attribute(self, node):
        if isinstance(node.value, cst.Name) and node.value.value == "self":
            self.names.add(node.attr.value)


class _InitRewrite(cst.CSTTransformer):
    def __init__(self, replacements):
        super().__init__()
        self.replacements = replacements  # original statement -> list of statements

    def visit_SimpleStatementLine(self, node):
        return False  # replaced whole or kept whole: nothing inside a simple statement is looked at

    def leave_SimpleStatementLine(self, original_node, updated_node):
        if original_node in self.replacements:
            new = self.replacements[original_node]
            if not new:
                return cst.RemoveFromParent()
            new[0] = new[0].with_changes(leading_lines=updated_node.leading_lines)
            return cst.FlattenSentinel(new)
        return updated_node

    def leave_IndentedBlock(self, original_node, updated_node):
        if not updated_node.body:
            return updated_node.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
        return updated_node
