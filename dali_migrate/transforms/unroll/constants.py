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

* ``types.Constant(v)`` of a value held in a name or an attribute (its kind not shown) is typed at run time the way
  pipeline mode typed it (``run_time_typed``). Built outside every pipeline step (a dataset class's ``__init__``),
  it becomes the tensor alone where every read of it meets batch data (``tensor_outside_steps``).

* ``types.Constant(f(x))`` of a value a call computes (``np.load(path)``, ``compute_mean(stats)``): pipeline mode
  called it once, when the graph was defined. The call is made once there still (``hoist``): its value is kept in
  a name of its own (``mean_value = np.load(path)``) before the statement, in ``__init__`` or before the steps'
  loop, and the constant reads that name (typed at run time as above, or with its dtype=). Never inside a lambda
  or a comprehension, nor in a step when the call reads what the steps compute::

      mean = types.Constant(np.load(p))   ->  mean_value = np.load(p)
                                               mean = ndd.Batch.broadcast(ndd.tensor(np.asarray(mean_value, ...)), batch_size)

What the code does not show otherwise (shape=/layout=/device= on types.Constant; a call's value where it cannot be
made once: a class's helper method, a lambda) stays marked (DM103).
"""

from __future__ import annotations

import ast
import math
import re

import libcst as cst

from ...names import TYPES, free_name
from ...walk import walk
from .model import NameReads, code_of, expr, kwarg

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


_DEFERRED = frozenset({cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp})  # run later, or per item


class Rewriter(cst.CSTTransformer):
    """Every constant in a piece of code that runs where ``batch_size`` (an expression) is the pipeline's batch
    size: a Pipeline class's ``__init__`` after its pipeline options are set, or its helper methods, which
    build the steps (``self.batch_size``). ``report(node, new)`` is told of each one rewritten."""

    def __init__(self, imports, batch_size: str, report, ctx=None, hoisting: str | None = None):
        super().__init__()
        self.imports, self.batch_size, self.report, self.ctx = imports, batch_size, report, ctx
        self._operands = Operands()
        self._cast_receivers: set[cst.Call] = set()
        # A call's value in types.Constant (``hoist``): None, made nowhere else (left marked); "local", assigned
        # to a name just before the simple statement it is in (``take_pending`` gives those of the root
        # statement); "collect", every such assignment left to the caller (``take_pending``), which puts it
        # before the steps' loop when ``hoist_check(value)`` allowed it. ``in_step``: the statement runs each step.
        self.hoisting, self.in_step = hoisting, False
        self.hoist_check = lambda value: True
        self._pending: list[cst.SimpleStatementLine] = []
        self._deferred = 0  # inside a lambda or a comprehension: evaluated later, or once per item
        self._root = None
        self._targets: list[str] = []  # the names of the assignments being visited (a hoisted name's base)

    def on_visit(self, node):
        if self._root is None:
            self._root = node
        node_type = type(node)  # (by type: isinstance against libcst's classes goes through ABCMeta, for every node)
        if node_type in _DEFERRED:
            self._deferred += 1
        if node_type is cst.Assign:
            target = node.targets[-1].target
            self._targets.append(target.attr.value if isinstance(target, cst.Attribute) else
                                 target.value if isinstance(target, cst.Name) else "constant")
        return super().on_visit(node)

    def on_leave(self, original_node, updated_node):
        result = super().on_leave(original_node, updated_node)
        node_type = type(original_node)
        if node_type in _DEFERRED:
            self._deferred -= 1
        if node_type is cst.Assign:
            self._targets.pop()
        if original_node is self._root:
            self._root = None
        elif node_type is cst.SimpleStatementLine and self._pending and self.hoisting == "local":
            made, self._pending = self._pending, []
            made[0] = made[0].with_changes(leading_lines=result.leading_lines)
            return cst.FlattenSentinel([*made, result.with_changes(leading_lines=[])])
        return result

    def take_pending(self) -> list:
        """The assignments ``hoist`` made that are still to be placed (see ``hoisting``)."""
        made, self._pending = self._pending, []
        return made

    def hoist(self, value: cst.BaseExpression) -> cst.Name | None:
        """A name holding ``value`` (a call's result), assigned once where pipeline mode computed it (``hoisting``);
        None where it cannot be."""
        if self.hoisting is None or self._deferred or self.ctx is None or not self.hoist_check(value):
            return None
        taken = self.ctx.facts.get("constant_names")
        if taken is None:
            taken = self.ctx.facts["constant_names"] = set(re.findall(r"\w+", self.ctx.source))
        base = (self._targets[-1] if self._targets else "constant").lstrip("_") or "constant"
        name = free_name(f"{base}_value", taken)
        taken.add(name)
        self._pending.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], value)]))
        return cst.Name(name)

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
        found = rewrite(self.imports, original_node, original_node in self._operands.found, self.batch_size,
                        hoist=self.hoist, in_step=self.in_step)
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


def rewrite(imports, original: cst.Call, operand: bool, batch_size: str, hoist=None,
            in_step: bool = False) -> cst.BaseExpression | None:
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
        return _types_constant(original, operand, batch_size, hoist, in_step)
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


def _types_constant(call: cst.Call, operand: bool, batch_size: str, hoist=None, in_step: bool = False):
    if any(a.star for a in call.args) or any(kwarg(call, k) is not None for k in ("shape", "layout", "device")):
        return None
    positional = [a for a in call.args if a.keyword is None]
    if len(positional) != 1 or any(a.keyword is not None and a.keyword.value != "dtype" for a in call.args):
        return None
    value, dtype = positional[0].value, kwarg(call, "dtype")
    kind = _scalar_kind(value)
    if kind is None and _literal(value) is None and _computed(value):
        # a call's value: made once, where pipeline mode made it (not each step), and read from its name
        if dtype is not None and not in_step:
            return _wrap(f"ndd.tensor({code_of(value)}, dtype={code_of(dtype)})", False, batch_size)
        name = hoist(value) if hoist is not None else None
        if name is None:
            return None
        value = name
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
        if kind is None:  # a value held in a variable: its type is decided at run time, as pipeline mode did
            return _wrap(run_time_typed(value), False, batch_size) if repeatable(value) else None
        dtype_text = _NDD_DTYPE[kind]
    else:
        dtype_text = code_of(dtype)
    return _wrap(f"ndd.tensor({code_of(value)}, dtype={dtype_text})", False, batch_size)


# The types pipeline mode narrowed an array's (or a list's, or a Python number's) numpy type to.
_NARROWED = '{"float64": np.float32, "int64": np.int32, "uint64": np.uint32}'


def run_time_typed(value: cst.BaseExpression) -> str:
    """``types.Constant(value)`` of a value whose kind the code does not show, typed at run time as pipeline mode
    typed it (docs/dali-facts.md): a numpy scalar or 0-d array keeps its type (a scalar constant); an array, a list
    or a Python number is narrowed float64 -> float32, int64 -> int32, uint64 -> uint32; bool and the rest keep
    theirs. ``value`` is read three times: only names and attributes are given (``repeatable``)."""
    v = code_of(value)
    kept = f"isinstance({v}, np.generic) or np.ndim({v}) == 0 and isinstance({v}, np.ndarray)"
    return f"ndd.tensor(np.asarray({v}, dtype=None if {kept} else {_NARROWED}.get(np.asarray({v}).dtype.name)))"


def _computed(value) -> bool:
    """``value`` calls something (``np.load(path)``, ``np.array(self.patch)``): each reading computes it again."""
    reads = NameReads()
    walk(cst.Expr(value), reads)
    return reads.calls > 0


def repeatable(value) -> bool:
    """A name or an attribute chain (``self.data_latlon``): reading it again gives the same value, with no call."""
    while isinstance(value, cst.Attribute):
        value = value.value
    return isinstance(value, cst.Name)


def tensor_outside_steps(imports, call: cst.Call):
    """``types.Constant(...)`` built outside every pipeline step (a dataset class's ``__init__``): the ndd tensor
    of its value, or None. Dynamic mode broadcasts a tensor against the batches it meets in arithmetic and as an
    operator's input or argument, as the constant node gave every sample its value (``used_with_batches``)."""
    if imports.qualname(call.func) != f"{TYPES}.Constant":
        return None
    return _types_constant(call, False, None)


class _Uses(cst.CSTVisitor):
    """Where the expression ``target`` (``self.latlon`` or a name) is read, and whether every read meets batch data:
    an operand of arithmetic whose other side is not a number, or an argument of a DALI operator that has another
    positional input."""

    def __init__(self, imports, target: str, assignment: cst.CSTNode):
        super().__init__()
        self.imports, self.target, self.assignment = imports, target, assignment
        self.count, self.good = 0, 0
        self._good: set[cst.CSTNode] = set()

    def visit_Assign(self, node):
        return node is not self.assignment

    def visit_BinaryOperation(self, node):
        for mine, other in ((node.left, node.right), (node.right, node.left)):
            if node in self._good or not isinstance(other, cst.BaseNumber) and code_of(other) != self.target:
                self._good.add(mine)  # (arithmetic that is itself an operator's input passes that on)

    def visit_Call(self, node):
        qualname = self.imports.qualname(node.func) or ""
        if not qualname.startswith(("nvidia.dali.fn.", "nvidia.dali.math.", "nvidia.dali.experimental.dynamic.")):
            return
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        for arg in node.args:
            if any(p is not arg.value and code_of(p) != self.target for p in positional):
                self._good.add(arg.value)

    def on_visit(self, node):
        if isinstance(node, (cst.Name, cst.Attribute)) and code_of(node) == self.target:
            self.count += 1
            self.good += node in self._good
            return False
        return super().on_visit(node)


def used_with_batches(imports, scope: cst.CSTNode, target: str, assignment: cst.CSTNode) -> bool:
    """Every read of ``target`` in ``scope`` (besides ``assignment``) meets batch data, and there is one."""
    uses = _Uses(imports, target, assignment)
    # Read-only: the walk, not libcst's visit (which rebuilds every node of ``scope``, often the module). The marks
    # go from a node to its descendants only, so the walk's order of a node's children does not matter.
    walk(scope, uses)
    return uses.count > 0 and uses.good == uses.count


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


def _wrap(tensor: str, operand: bool, batch_size: str | None) -> cst.BaseExpression:
    """The tensor where it is an operand (or no batch size applies: outside the steps), else a batch of it."""
    return expr(tensor if operand or batch_size is None else f"ndd.Batch.broadcast({tensor}, {batch_size})")


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
