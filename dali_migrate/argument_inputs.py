"""Whether an argument value reaches a dynamic-mode operator as pipeline mode gave it (issue 32; DM117).

Pipeline mode gives an operator every Python value as a plain argument. Dynamic mode (DALI 2.4.0) does that only
where the call site shows the value is constant (``_source_analysis.constant_kwargs``: literals, arithmetic of them,
lists and tuples of them, DALI enums, a local bound once to an immutable literal); any other value of an argument
that may be a tensor becomes a per-sample argument input. ``optable.argument_inputs_differ`` says, per operator and
argument, which spellings of a value (a scalar, a list of one, a longer list) run differently that way (measured by
``tools/probe_arguments.py``). Read by the unroll (pipeline steps: the pipeline stays) and the arguments pass (other
ndd calls: marked).
"""

from __future__ import annotations

import libcst as cst

from .dataflow import DATANODE, DATANODES, TENSORCPU, TENSORLIST
from .walk import walk

_DATA = {DATANODE, DATANODES, TENSORLIST, TENSORCPU, "batch", "tensor", "data"}
# Arguments the arguments pass rewrites where it can and marks otherwise (DM114 normalize's scalars, DM116
# warp_affine's flat matrix): its own rewrite (np.asarray(...).reshape(2, 3)) is no constant either, so a second run
# must not mark what the first wrote.
_REWRITTEN_ELSEWHERE = {("normalize", "mean"), ("normalize", "stddev"), ("warp_affine", "matrix")}


def rewritten_elsewhere(ndd_path: str, keyword: str) -> bool:
    return (ndd_path, keyword) in _REWRITTEN_ELSEWHERE


def reason(keyword: str, value, shown: str, ndd_path: str, measured: tuple, flow, imports) -> str | None:
    """Why ``ndd.<ndd_path>(..., keyword=value)`` would not run as pipeline mode ran it (``measured``: its entry in
    ``optable.argument_inputs_differ``; ``shown``: the value's code), or None."""
    found = difference(value, measured, flow, imports)
    if found is None:
        return None
    spelling, what = found
    if not measured[3]:
        return (f"{keyword}={shown} on ndd.{ndd_path}: dynamic mode passes a value its call site does not show to be "
                f"constant as a per-sample argument input and makes the operator for the batch size rounded up to a "
                f"power of two, and at other batch sizes it rejects a value like {spelling} ({what}); pipeline mode "
                f"ran it")
    return (f"{keyword}={shown} on ndd.{ndd_path}: dynamic mode passes a value its call site does not show to be "
            f"constant as a per-sample argument input, and with a value like {spelling} it does not run alike "
            f"({what}); pipeline mode took it as a plain argument")


def difference(value, measured: tuple, flow, imports) -> tuple[str, str] | None:
    """What goes wrong when ``value`` reaches an argument measured as ``(differs, same, DALI type, _)``
    (``optable.argument_inputs_differ``): (the first spelling that differs of the value's own kind, what happened
    with it). The kind: a scalar, a list of one, a longer list; a name bound once to a literal is that literal;
    anything else is spelled as the argument's type: a scalar, or for a vector a longer list where one was measured,
    else a list of one. None when the value is constant at the call, a graph value (an argument input in both modes)
    where the difference holds at any batch size, or of a kind that runs alike."""
    differs, same, dali_type, at_any_batch_size = measured
    if constant_at_call(value, imports) or at_any_batch_size and graph_value(value, flow):
        return None  # (a graph value is an argument input in both modes; one the operator rejects at some batch
        # sizes only fails in dynamic mode, which makes the operator for a larger one)
    shown = value
    if isinstance(value, cst.Name) and flow is not None:
        bound = flow.single_value(value)
        shown = bound if bound is not None and is_literal_value(bound) else value
    kind = spelling_kind(shown) if shown is not value or is_literal_value(value) else None
    if kind is None:
        measured_kinds = {spelling_kind_of_repr(s) for s in [*same, *differs]}
        kind = "scalar" if not dali_type.endswith("_VEC") else "list" if "list" in measured_kinds else "list1"
    for spelling, what in differs.items():
        if spelling_kind_of_repr(spelling) == kind:
            return spelling, what
    return None


def graph_value(value, flow) -> bool:
    """``value`` reads a graph value (a DataNode, or a Batch the migration made of one): ``m``, ``shape[0:1]``."""
    if flow is None:
        return False
    names = NameNodes()
    walk(value, names)
    for name in [value, *names.found]:
        try:
            if flow.kind_of(name) in _DATA:
                return True
        except Exception:  # a node the flow model never saw (written by an earlier pass)
            continue
    return False


class NameNodes(cst.CSTVisitor):
    """The Name nodes of an expression."""

    def __init__(self):
        super().__init__()
        self.found: list[cst.Name] = []

    def visit_Name(self, node):
        self.found.append(node)


def is_literal_value(expr) -> bool:
    """A number, a string, True/False/None, a DALI-free unary minus, or a list/tuple of them."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        return is_literal_value(expr.expression)
    if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(expr, cst.Name):
        return expr.value in ("True", "False", "None")
    if isinstance(expr, (cst.List, cst.Tuple)):
        return all(isinstance(e, cst.Element) and is_literal_value(e.value) for e in expr.elements)
    return False


def constant_at_call(expr, imports) -> bool:
    """What DALI 2.4.0's dynamic mode proves constant at a call site without running it (``_source_analysis``):
    literals, arithmetic of them, lists and tuples of them, and attributes of DALI modules (types.INTERP_NN)."""
    if is_literal_value(expr):
        return True
    if isinstance(expr, cst.BinaryOperation):
        return constant_at_call(expr.left, imports) and constant_at_call(expr.right, imports)
    if isinstance(expr, (cst.List, cst.Tuple)):
        return all(isinstance(e, cst.Element) and constant_at_call(e.value, imports) for e in expr.elements)
    if isinstance(expr, cst.Attribute):
        return (imports.qualname(expr) or "").startswith("nvidia.dali.")
    return False


def spelling_kind(expr) -> str | None:
    """'scalar', 'list1' or 'list' (two or more elements) for a literal value."""
    if isinstance(expr, (cst.List, cst.Tuple)):
        return "list1" if len(expr.elements) == 1 else "list"
    return "scalar" if is_literal_value(expr) else None


def spelling_kind_of_repr(text: str) -> str:
    """The same for a probe's spelling (the repr of a value): '[0.5]' is 'list1', '[4, 4]' 'list', '0.5' 'scalar'."""
    if text.startswith(("[", "(")):
        return "list1" if text.count(",") == 0 or text.rstrip("])").rstrip().endswith(",") and text.count(",") == 1 \
            else "list"
    return "scalar"
