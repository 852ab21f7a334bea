"""Constants inside a pipeline step: ``types.Constant`` and ``fn.constant`` (issue 15, capability 5).

Dynamic mode has neither (ndd-facts §4). What they computed, as verified on DALI 2.4.0
(``tests/test_constants_runtime.py``, docs/dali-facts.md):

* ``types.Constant(v)`` of a Python or numpy *scalar*, without shape/layout/device, is a scalar constant:
  in arithmetic an ``int`` is int32, a ``float`` float32, a numpy scalar keeps its type; ``.uint8()`` and
  the other cast methods give it a type. ndd arithmetic with a plain Python scalar gives the same types,
  so as an operand of arithmetic or an operator's keyword argument it becomes the value itself
  (``ndd.tensor(v, dtype=...)`` when cast or given a dtype)::

      images * types.Constant(255).uint8()     ->  images * ndd.tensor(255, dtype=ndd.uint8)
      fn.rotate(images, angle=types.Constant(30.0))  ->  ndd.rotate(images, angle=30.0)

* Anywhere else (a name used later, an operator input) a constant is a batch whose samples are all the
  value: ``ndd.Batch.broadcast(ndd.tensor(v, dtype=D), batch_size)``, with the dtype pipeline mode gave
  it (a list or an array of ints is int32, of floats float32: *not* numpy's int64/float64)::

      scale = types.Constant(np.float32(4.0))  ->  scale = ndd.Batch.broadcast(ndd.tensor(np.float32(4.0)), batch_size)
      offset = types.Constant([1, 2])          ->  offset = ndd.Batch.broadcast(ndd.tensor([1, 2], dtype=ndd.int32), batch_size)

* ``fn.constant(fdata=... | idata=..., shape=S, dtype=D)``: float32 for fdata, int32 for idata unless
  dtype says otherwise; one value fills the shape, several are reshaped to it. The migration writes the
  literal nested list (the data and the shape must be literals, at most 4096 values)::

      fn.constant(fdata=[9.0] * 3, shape=[1, 3])  ->  ndd.Batch.broadcast(ndd.tensor([[9.0, 9.0, 9.0]], dtype=ndd.float32), batch_size)

What the code does not show (an array held in a variable without dtype=, whose numpy type pipeline mode
narrowed; shape=/layout=/device= on types.Constant; data computed at run time) stays marked (DM103).
"""

from __future__ import annotations

import ast
import math

import libcst as cst

from ...names import TYPES
from .model import code_of, expr, kwarg

CASTS = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
         "float64")
_MAX_VALUES = 4096


class Operands(cst.CSTVisitor):
    """The expressions that are an operand of arithmetic or an operator's keyword argument."""

    def __init__(self):
        super().__init__()
        self.found: set[cst.CSTNode] = set()

    def visit_BinaryOperation(self, node):
        self.found.update((node.left, node.right))

    def visit_UnaryOperation(self, node):
        self.found.add(node.expression)

    def visit_Comparison(self, node):
        self.found.add(node.left)
        self.found.update(c.comparator for c in node.comparisons)

    def visit_Arg(self, node):
        if node.keyword is not None:
            self.found.add(node.value)


class Rewriter(cst.CSTTransformer):
    """Every constant in a piece of code that runs where ``batch_size`` (an expression) is the pipeline's batch
    size: a Pipeline class's ``__init__`` after its pipeline options are set, or its helper methods, which
    build the steps (``self.batch_size``). ``report(node, new)`` is told of each one rewritten."""

    def __init__(self, imports, batch_size: str, report, ctx=None):
        super().__init__()
        self.imports, self.batch_size, self.report, self.ctx = imports, batch_size, report, ctx
        self._operands = Operands()
        self._cast_receivers: set[cst.Call] = set()

    def visit_BinaryOperation(self, node):
        self._operands.visit_BinaryOperation(node)

    def visit_UnaryOperation(self, node):
        self._operands.visit_UnaryOperation(node)

    def visit_Comparison(self, node):
        self._operands.visit_Comparison(node)

    def visit_Arg(self, node):
        self._operands.visit_Arg(node)

    def visit_Attribute(self, node):
        if node.attr.value in CASTS and isinstance(node.value, cst.Call):
            self._cast_receivers.add(node.value)

    def constant(self, original_node: cst.Call):
        """(whether the call is a constant, its ndd expression or None where the code does not show it)."""
        func = original_node.func
        cast = isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call) \
            and is_constant_call(self.imports, func.value)
        if not (cast or is_constant_call(self.imports, original_node) and original_node not in self._cast_receivers):
            return False, None
        found = rewrite(self.imports, original_node, original_node in self._operands.found, self.batch_size)
        if found is not None:
            self.report(original_node, found)
            if self.ctx is not None and "np." in code_of(found):  # data in a variable: numpy types it (_fn_constant)
                from ..imports import request_import

                request_import(self.ctx, "np", "import numpy as np")
        return True, found

    def leave_Call(self, original_node, updated_node):
        return self.constant(original_node)[1] or updated_node


def is_constant_call(imports, call: cst.Call) -> bool:
    return imports.qualname(call.func) in (f"{TYPES}.Constant", "nvidia.dali.fn.constant")


def rewrite(imports, original: cst.Call, operand: bool, batch_size: str) -> cst.BaseExpression | None:
    """The ndd expression for a constant call (``types.Constant(...)``, its ``.uint8()``-style cast, or
    ``fn.constant(...)``), or None when the code does not show what it computed."""
    func = original.func
    if isinstance(func, cst.Attribute) and func.attr.value in CASTS and not original.args \
            and isinstance(func.value, cst.Call) and imports.qualname(func.value.func) == f"{TYPES}.Constant":
        value = _scalar_value(func.value)
        if value is None:
            return None
        return _wrap(f"ndd.tensor({code_of(value)}, dtype=ndd.{func.attr.value})", operand, batch_size)
    path = imports.qualname(func)
    if path == f"{TYPES}.Constant":
        return _types_constant(original, operand, batch_size)
    if path == "nvidia.dali.fn.constant":
        return _fn_constant(original, batch_size)
    return None


def _scalar_value(call: cst.Call):
    """The value of ``types.Constant(value)`` when that is all it has (a scalar constant), else None."""
    if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
        return None
    value = call.args[0].value
    return value if _scalar_kind(value) is not None else None


def _scalar_kind(value) -> str | None:
    """"int"/"float"/"bool" for a Python number literal, "numpy" for ``np.float32(...)``-style calls."""
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, (cst.Minus, cst.Plus)):
        value = value.expression
    if isinstance(value, cst.Integer):
        return "int"
    if isinstance(value, cst.Float):
        return "float"
    if isinstance(value, cst.Name) and value.value in ("True", "False"):
        return "bool"
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in CASTS \
            and len(value.args) == 1 and isinstance(value.func.value, cst.Name) and value.func.value.value in (
                "np", "numpy"):
        return "numpy"
    return None


_NDD_DTYPE = {"int": "ndd.int32", "float": "ndd.float32", "bool": "ndd.bool"}


def _types_constant(call: cst.Call, operand: bool, batch_size: str):
    if any(a.star for a in call.args) or any(kwarg(call, k) is not None for k in ("shape", "layout", "device")):
        return None
    positional = [a for a in call.args if a.keyword is None]
    if len(positional) != 1 or any(a.keyword is not None and a.keyword.value != "dtype" for a in call.args):
        return None
    value, dtype = positional[0].value, kwarg(call, "dtype")
    kind = _scalar_kind(value)
    if kind is not None:
        if dtype is not None:
            return _wrap(f"ndd.tensor({code_of(value)}, dtype={code_of(dtype)})", operand, batch_size)
        if operand:
            return value  # ndd arithmetic gives a Python int int32 and a float float32, as pipeline mode did
        typed = "" if kind == "numpy" else f", dtype={_NDD_DTYPE[kind]}"
        return _wrap(f"ndd.tensor({code_of(value)}{typed})", False, batch_size)
    if dtype is None:
        literal = _literal(value)
        kind = _element_kind(literal) if literal is not None else None
        if kind is None:
            return None  # an array in a variable: pipeline mode narrowed its numpy type, which is not shown here
        dtype_text = _NDD_DTYPE[kind]
    else:
        dtype_text = code_of(dtype)
    return _wrap(f"ndd.tensor({code_of(value)}, dtype={dtype_text})", False, batch_size)


def _fn_constant(call: cst.Call, batch_size: str):
    if any(a.keyword is None or a.star for a in call.args):
        return None
    known = {"fdata", "idata", "shape", "dtype", "layout", "device"}
    if any(a.keyword.value not in known for a in call.args):
        return None
    fdata, idata = kwarg(call, "fdata"), kwarg(call, "idata")
    if (fdata is None) == (idata is None):
        return None
    data = _literal(fdata if fdata is not None else idata)
    shape_node = kwarg(call, "shape")
    shape = _literal(shape_node) if shape_node is not None else None
    if data is None and shape_node is None and kwarg(call, "dtype") is None and kwarg(call, "layout") is None:
        # data held in a variable (an int or a list of them, as the argument's type says): a 1-D array of them,
        # int32 for idata, float32 for fdata (docs/dali-facts.md)
        extra = f", device={code_of(kwarg(call, 'device'))}" if kwarg(call, "device") is not None else ""
        numpy_type = "np.float32" if fdata is not None else "np.int32"
        return _wrap(f"ndd.tensor(np.ravel(np.asarray({code_of(fdata if fdata is not None else idata)}, "
                     f"dtype={numpy_type})){extra})", False, batch_size)
    if data is None or (shape_node is not None and shape is None):
        return None
    values = data if isinstance(data, list) else [data]
    if not values or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return None
    if shape is not None:
        shape = [shape] if isinstance(shape, int) else shape
        if not isinstance(shape, list) or not all(isinstance(s, int) and s >= 0 for s in shape):
            return None
        count = math.prod(shape)
        if count > _MAX_VALUES or len(values) not in (1, count):
            return None
        nested = _nest(values * count if len(values) == 1 else values, shape)
    else:
        if len(values) > _MAX_VALUES:
            return None
        nested = values
    dtype = kwarg(call, "dtype")
    dtype_text = code_of(dtype) if dtype is not None else ("ndd.float32" if fdata is not None else "ndd.int32")
    extra = "".join(f", {k}={code_of(kwarg(call, k))}" for k in ("layout", "device") if kwarg(call, k) is not None)
    return _wrap(f"ndd.tensor({nested!r}, dtype={dtype_text}{extra})", False, batch_size)


def _wrap(tensor: str, operand: bool, batch_size: str) -> cst.BaseExpression:
    return expr(tensor if operand else f"ndd.Batch.broadcast({tensor}, {batch_size})")


def _literal(node):
    """The Python value of a literal (``[9.0] * 5`` too), else None."""
    if node is None:
        return None
    text = code_of(node)
    try:
        return _as_list(ast.literal_eval(text))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
        left, right = _literal(node.left), _literal(node.right)
        if isinstance(left, list) and isinstance(right, int) and not isinstance(right, bool) \
                and 0 <= len(left) * right <= _MAX_VALUES:
            return left * right
    return None


def _as_list(value):
    if isinstance(value, tuple):
        return [_as_list(v) for v in value]
    if isinstance(value, list):
        return [_as_list(v) for v in value]
    return value


def _element_kind(value) -> str | None:
    """"int" or "float" for a (nested) list of numbers all of one kind (as pipeline mode types them)."""
    flat, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        else:
            flat.append(item)
    if not flat or not isinstance(value, list):
        return None
    if all(isinstance(v, int) and not isinstance(v, bool) for v in flat):
        return "int"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in flat):
        return "float"
    return None


def _nest(values: list, shape: list):
    if not shape:
        return values[0]
    if len(shape) == 1:
        return list(values)
    step = math.prod(shape[1:])
    return [_nest(values[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]
