"""A light dataflow for lint rules: which names hold DALI dynamic-mode values.

Per scope (module, function, lambda, comprehension), every binding of a name is recorded
(assignments, unpacking, ``for`` targets, parameters with annotations). A name has a kind only when
*every* binding in its scope agrees, computed as a small optimistic fixpoint so that
``images = ndd.resize(images)`` keeps ``images`` a Batch. Anything we cannot see through gives
``None`` (unknown), and rules stay quiet on unknown values: a false positive is worse than a miss.

Kinds:
  "batch", "tensor"   an ndd.Batch / ndd.Tensor
  "data"              one of the two (an op result whose inputs are unknown)
  "tuple:K"           a tuple or dict of K (a reader step, a multi-output op)
  "epoch:K"           the generator from ``reader.next_epoch(...)``; each step is "tuple:K"
  "reader", "rng", "ckpt", "external_source"
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from .. import optable
from ..names import NDD, ImportTable
from . import derive

BOTTOM = "<bottom>"  # no information yet (fixpoint start)
DATA_KINDS = ("batch", "tensor", "data")

_BATCH_MAKERS = {"batch", "as_batch", "Batch", "Batch.broadcast"}
_TENSOR_MAKERS = {"tensor", "as_tensor", "Tensor"}
_SAME_KIND_METHODS = {"cpu", "gpu", "evaluate"}


def join(a, b):
    if a == BOTTOM:
        return b
    if b == BOTTOM or a == b:
        return a
    if a in DATA_KINDS and b in DATA_KINDS:
        return "data"
    if isinstance(a, str) and isinstance(b, str) and a.startswith("tuple:") and b.startswith("tuple:"):
        inner = join(a[6:], b[6:])
        return None if inner is None else f"tuple:{inner}"
    return None


def is_data(kind) -> bool:
    return kind in DATA_KINDS


@dataclass
class Binding:
    value: cst.BaseExpression | None  # None: a binding we cannot see through
    path: tuple = ()  # steps from the value's kind to this name's kind: "elem", ("index", i), "enum"
    scope: "Scope | None" = None  # where the value expression is evaluated
    annotation_kind: str | None = None


@dataclass(eq=False)
class Scope:
    node: cst.CSTNode
    parent: "Scope | None"
    is_class: bool = False
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    opaque: set[str] = field(default_factory=set)  # global/nonlocal: never known

    def bind(self, name: str, binding: Binding) -> None:
        self.bindings.setdefault(name, []).append(binding)

    def lookup_scope(self, name: str) -> "Scope | None":
        scope: Scope | None = self
        first = True
        while scope is not None:
            if name in scope.opaque:
                return None
            if name in scope.bindings and (first or not scope.is_class):
                return scope
            first = False
            scope = scope.parent
        return None


def literal_int(expr) -> bool:
    if isinstance(expr, cst.Integer):
        return True
    return isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) and \
        isinstance(expr.expression, cst.Integer)


def is_literal(expr) -> bool:
    """A constant that is surely not a DALI value (numbers, strings, containers of them)."""
    if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)):
        return True
    if isinstance(expr, cst.Name) and expr.value in ("True", "False", "None"):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return is_literal(expr.expression)
    if isinstance(expr, cst.BinaryOperation):
        return is_literal(expr.left) and is_literal(expr.right)
    if isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
        return all(isinstance(e, cst.Element) and is_literal(e.value) for e in expr.elements)
    return False


def keyword(call: cst.Call, name: str) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


class Flow:
    """Kinds of expressions in one module. Built once per lint run."""

    def __init__(self, imports: ImportTable, scopes: list[Scope]) -> None:
        self.imports = imports
        self.scopes = scopes
        self._kinds: dict[tuple[int, str], object] = {}
        self._solve()

    # -- names ---------------------------------------------------------------------------------
    def ndd_path(self, expr) -> str | None:
        """``"readers.File"`` for an expression naming ``ndd.readers.File``, else None."""
        q = self.imports.qualname(expr)
        if q and q.startswith(NDD + "."):
            return q[len(NDD) + 1:]
        return None

    def name_kind(self, name: str, scope: Scope):
        owner = scope.lookup_scope(name)
        if owner is None:
            return None
        return self._kinds.get((id(owner), name), BOTTOM)

    def _solve(self) -> None:
        names = [(s, n) for s in self.scopes for n in s.bindings]
        for _ in range(8):
            changed = False
            for scope, name in names:
                kind = BOTTOM
                for b in scope.bindings[name]:
                    kind = join(kind, self._binding_kind(b))
                    if kind is None:
                        break
                key = (id(scope), name)
                if self._kinds.get(key, BOTTOM) != kind:
                    self._kinds[key] = kind
                    changed = True
            if not changed:
                break
        for key, kind in self._kinds.items():  # what never got information is unknown
            if kind == BOTTOM:
                self._kinds[key] = None

    def _binding_kind(self, b: Binding):
        if b.annotation_kind is not None:
            return b.annotation_kind
        if b.value is None:
            return None
        kind = self.kind(b.value, b.scope)
        for step in b.path:
            if kind == BOTTOM:
                return BOTTOM
            kind = project(kind, step)
        return kind

    # -- expressions ---------------------------------------------------------------------------
    def kind(self, expr, scope: Scope):
        """The kind of ``expr`` evaluated in ``scope`` (None when unknown)."""
        if isinstance(expr, cst.Name):
            return self.name_kind(expr.value, scope)
        if isinstance(expr, cst.Call):
            return self._call_kind(expr, scope)
        if isinstance(expr, cst.Subscript):
            value = expr.value
            if isinstance(value, cst.Attribute) and value.attr.value == "slice":
                inner = self.kind(value.value, scope)
                return inner if inner in ("batch", BOTTOM) else None
            inner = self.kind(value, scope)
            if inner == BOTTOM:
                return BOTTOM
            if isinstance(inner, str) and inner.startswith("tuple:"):
                return inner[6:]
            if inner == "tensor":
                return "tensor"
            return None
        if isinstance(expr, cst.BinaryOperation):
            return self._arith_kind([expr.left, expr.right], scope)
        if isinstance(expr, cst.Comparison):
            ops = expr.comparisons
            if len(ops) == 1 and isinstance(ops[0].operator, (cst.Equal, cst.NotEqual, cst.LessThan,
                                                                  cst.LessThanEqual, cst.GreaterThan,
                                                                  cst.GreaterThanEqual)):
                return self._arith_kind([expr.left, ops[0].comparator], scope)
            return None
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus, cst.BitInvert)):
            k = self.kind(expr.expression, scope)
            return k if k in DATA_KINDS or k == BOTTOM else None
        if isinstance(expr, cst.IfExp):
            return join(self.kind(expr.body, scope), self.kind(expr.orelse, scope))
        return None

    def _arith_kind(self, operands, scope):
        kinds = [self.kind(o, scope) for o in operands]
        if "batch" in kinds:
            return "batch"
        if BOTTOM in kinds and any(is_data(k) or k == BOTTOM for k in kinds):
            return BOTTOM
        data = [k for k in kinds if is_data(k)]
        if not data:
            return None
        # Every other operand must be a plain constant; an ndarray or torch tensor could win.
        if all(is_data(k) or is_literal(o) for k, o in zip(kinds, operands)):
            return "tensor" if all(k == "tensor" for k in data) else "data"
        return None

    def _call_kind(self, call: cst.Call, scope: Scope):
        func = call.func
        path = self.ndd_path(func)
        if path is not None:
            return self._ndd_call_kind(path, call, scope)
        if isinstance(func, cst.Attribute):
            receiver = self.kind(func.value, scope)
            if receiver == BOTTOM:
                return BOTTOM
            method = func.attr.value
            if receiver == "reader" and method == "next_epoch":
                has_bs = any(a.keyword is None for a in call.args) or keyword(call, "batch_size") is not None
                return "epoch:batch" if has_bs else "epoch:data"
            if is_data(receiver) and method in _SAME_KIND_METHODS:
                return receiver
            if receiver in ("batch", "data") and method == "select" and call.args:
                arg = call.args[0].value
                if literal_int(arg):
                    return "tensor"
                if isinstance(arg, (cst.List, cst.Tuple)) or (
                        isinstance(arg, cst.Call) and isinstance(arg.func, cst.Name) and arg.func.value == "slice"):
                    return "batch"
                return "data"
            if receiver == "external_source" and method in ("__call__",):
                return "data"
        return None

    def _ndd_call_kind(self, path: str, call: cst.Call, scope: Scope):
        if path in _BATCH_MAKERS:
            return "batch"
        if path in _TENSOR_MAKERS:
            return "tensor"
        if path == "random.RNG":
            return "rng"
        if path == "checkpoint.Checkpoint":
            return "ckpt"
        if path == "ExternalSource":
            return "external_source"
        if reader_path(path):
            return "reader"
        op = op_path(path)
        if op is None:
            return None
        inputs = [a.value for a in call.args if a.keyword is None or a.keyword.value not in (
            "device", "dtype", "rng", "batch_size", "layout")]
        kinds = [self.kind(e, scope) for e in inputs]
        if "batch" in kinds or keyword(call, "batch_size") is not None:
            result = "batch"
        elif BOTTOM in kinds:
            return BOTTOM
        elif all(k == "tensor" or is_literal(e) for k, e in zip(kinds, inputs)):
            result = "tensor"
        else:
            result = "data"
        if derive.may_have_several_outputs(op, {a.keyword.value for a in call.args if a.keyword}):
            return f"tuple:{result}"
        return result


def project(kind, step):
    """The kind one step inside ``kind``: iterating it, unpacking it, or enumerate's second item."""
    if kind is None:
        return None
    if step == "elem":
        if kind.startswith("epoch:"):
            return "tuple:" + kind[6:]
        if kind == "batch":
            return "tensor"
        if kind.startswith("tuple:"):
            return kind[6:]
        return None
    if isinstance(step, tuple) and step[0] == "index":
        return kind[6:] if kind.startswith("tuple:") else None
    return None


def reader_path(path: str) -> bool:
    """``readers.File`` / ``readers.file`` / ``experimental.readers.Fits``: a reader class (or its
    lowercase misspelling)."""
    head, _, name = path.rpartition(".")
    return head in ("readers", "experimental.readers") and bool(name)


def op_path(path: str) -> str | None:
    """The ndd op path when ``path`` names an ndd operator function, else None."""
    if path.startswith("math."):
        return path
    if path in _ndd_functions():
        return path
    return None


_FUNCTIONS: frozenset[str] | None = None


def _ndd_functions() -> frozenset[str]:
    global _FUNCTIONS
    if _FUNCTIONS is None:
        table = optable.table()["fn"]
        _FUNCTIONS = frozenset(e["ndd"] for e in table.values()
                               if e.get("ndd") and e.get("kind") != "reader") | {"imread"}
    return _FUNCTIONS


# -- building scopes ---------------------------------------------------------------------------

class ScopeBuilder(cst.CSTVisitor):
    """Walks a module once: builds scopes with their bindings and records each node's scope."""

    def __init__(self, imports: ImportTable) -> None:
        super().__init__()
        self.imports = imports
        self.scopes: list[Scope] = []
        self.scope_of: dict[cst.CSTNode, Scope] = {}
        self.stack: list[Scope] = []
        self.nodes: list[cst.CSTNode] = []  # every node, in source order

    @property
    def scope(self) -> Scope:
        return self.stack[-1]

    def _push(self, node, is_class=False) -> Scope:
        scope = Scope(node, self.stack[-1] if self.stack else None, is_class=is_class)
        self.scopes.append(scope)
        self.stack.append(scope)
        return scope

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.stack:
            self.scope_of[node] = self.scope
            self.nodes.append(node)
        return super().on_visit(node)

    def visit_Module(self, node: cst.Module) -> None:
        self._push(node)
        self.scope_of[node] = self.scope

    def leave_Module(self, node: cst.Module) -> None:
        self.stack.pop()

    # Functions: the decorators, defaults and annotations belong to the enclosing scope; we keep
    # it simple and put the whole def in the new scope except its name binding.
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scope.bind(node.name.value, Binding(None))
        scope = self._push(node)
        self._bind_params(node.params, scope)

    def leave_FunctionDef(self, node) -> None:
        self.stack.pop()

    def visit_Lambda(self, node: cst.Lambda) -> None:
        scope = self._push(node)
        self._bind_params(node.params, scope)

    def leave_Lambda(self, node) -> None:
        self.stack.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scope.bind(node.name.value, Binding(None))
        self._push(node, is_class=True)

    def leave_ClassDef(self, node) -> None:
        self.stack.pop()

    def _comp_visit(self, node) -> None:
        outer = self.scope
        scope = self._push(node)
        comp = node.for_in
        while comp is not None:
            self._bind_target(comp.target, Binding(comp.iter, ("elem",), outer if comp is node.for_in else scope),
                              scope)
            comp = comp.inner_for_in

    def _comp_leave(self, node) -> None:
        self.stack.pop()

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comp_visit
    leave_ListComp = leave_SetComp = leave_GeneratorExp = leave_DictComp = _comp_leave

    def _bind_params(self, params: cst.Parameters, scope: Scope) -> None:
        every = [*params.posonly_params, *params.params, *params.kwonly_params]
        for p in every:
            kind = None
            if p.annotation is not None:
                path = self.imports.qualname(p.annotation.annotation)
                if path == f"{NDD}.Batch":
                    kind = "batch"
                elif path == f"{NDD}.Tensor":
                    kind = "tensor"
            scope.bind(p.name.value, Binding(None, annotation_kind=kind))
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                scope.bind(star.name.value, Binding(None))

    # -- bindings ------------------------------------------------------------------------------
    def _bind_target(self, target, binding: Binding, scope: Scope | None = None) -> None:
        scope = scope or self.scope
        if isinstance(target, cst.Name):
            scope.bind(target.value, binding)
        elif isinstance(target, (cst.Tuple, cst.List)):
            starred = any(isinstance(e, cst.StarredElement) for e in target.elements)
            for i, element in enumerate(target.elements):
                inner = element.value
                if starred:
                    self._bind_target(inner, Binding(None), scope)
                else:
                    self._bind_target(inner, Binding(binding.value, (*binding.path, ("index", i)), binding.scope),
                                      scope)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value, Binding(None), scope)
        # attributes and subscripts bind no name

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            self._bind_target(t.target, Binding(node.value, (), self.scope))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        path = self.imports.qualname(node.annotation.annotation)
        kind = {f"{NDD}.Batch": "batch", f"{NDD}.Tensor": "tensor"}.get(path or "")
        self._bind_target(node.target, Binding(node.value, (), self.scope, annotation_kind=kind))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            value = cst.BinaryOperation(left=node.target, operator=cst.Add(), right=node.value)
            self.scope_of[value] = self.scope
            self.scope.bind(node.target.value, Binding(value, (), self.scope))

    def visit_For(self, node: cst.For) -> None:
        it = node.iter
        if (isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "enumerate"
                and it.args and isinstance(node.target, cst.Tuple) and len(node.target.elements) == 2):
            self._bind_target(node.target.elements[0].value, Binding(None))
            self._bind_target(node.target.elements[1].value, Binding(it.args[0].value, ("elem",), self.scope))
        else:
            self._bind_target(node.target, Binding(it, ("elem",), self.scope))

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind_target(node.target, Binding(node.value, (), self.scope))

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._bind_unknown(node.asname.name)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._bind_unknown(node.name.name)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            if alias.asname is not None:
                self._bind_unknown(alias.asname.name)
            else:  # `import a.b.c` binds `a`
                root = cst.ensure_type(alias.name, cst.Name) if isinstance(alias.name, cst.Name) else None
                name = root.value if root else (self.imports.qualname(alias.name) or "").split(".")[0]
                if name:
                    self.scope.bind(name, Binding(None))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            target = alias.asname.name if alias.asname else alias.name
            if isinstance(target, cst.Name):
                self.scope.bind(target.value, Binding(None))

    def visit_Global(self, node: cst.Global) -> None:
        for n in node.names:
            self.scope.opaque.add(n.name.value)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        for n in node.names:
            self.scope.opaque.add(n.name.value)

    def visit_Del(self, node: cst.Del) -> None:
        self._bind_unknown(node.target)

    def _bind_unknown(self, target) -> None:
        if isinstance(target, cst.Name):
            self.scope.bind(target.value, Binding(None))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for e in target.elements:
                self._bind_unknown(e.value)


def is_op_call_or_data(ctx, expr) -> bool:
    """``expr`` is an ndd operator call, or a value the dataflow knows is a Batch/Tensor."""
    if isinstance(expr, cst.Call):
        path = ctx.ndd_path(expr.func)
        if path is not None and op_path(path) is not None:
            return True
    return is_data(ctx.kind(expr))
