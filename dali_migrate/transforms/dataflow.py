"""Which values come from DALI: a small, conservative value-kind analysis over one module.

Passes must rewrite ``x.at(i)`` only when ``x`` is a DALI TensorList, never on a pandas frame that
happens to have ``.at``. This module follows names through assignments, tuple unpacking, loops
and indexing, scope by scope (module, functions, lambdas, comprehensions, ``self.attr`` within a
class), and answers ``kind_of(expr)``.

It is flow-insensitive and conservative: a name has a kind only when **every** binding of it in
its scope gives that kind (``x = pipe.run()[0]`` and later ``x = df`` make ``x`` unknown).
Parameters, imports, ``with ... as``, ``global``/``nonlocal`` names and anything else it cannot
prove are unknown. The kinds form a flat lattice solved by fixpoint iteration, so
``images = images.as_cpu()`` keeps ``images`` a TensorList.
"""

from __future__ import annotations

import libcst as cst

from .. import optable
from ..names import FN, MATH, OPS, TYPES, ImportTable
from .walk import walk

# Value kinds. None is "no information yet" (bottom); TOP is "unknown / not provably DALI".
PIPELINE = "pipeline"  # a Pipeline object
PIPELINE_FACTORY = "pipeline_factory"  # a @pipeline_def function or a Pipeline subclass
OUTPUTS = "outputs"  # what pipe.run() returns: a tuple of TensorLists
OUTPUTS_LIST = "outputs_list"  # [pipe.run() for ...]: a list of such tuples
TENSORLIST = "tensorlist"  # one pipeline output (TensorListCPU/GPU)
TENSOR = "tensor"  # tl[i]: one sample (TensorCPU/GPU)
DATANODE = "datanode"  # a graph value inside a pipeline definition
DATANODES = "datanodes"  # a multi-output op's list of DataNodes
TOP = "top"

PIPELINE_DEF = "nvidia.dali.pipeline_def"
PIPELINE_CLASS = "nvidia.dali.Pipeline"
_RUN_METHODS = {"run", "outputs", "share_outputs"}
_DALI_CALLS = (FN + ".", MATH + ".", OPS + ".", PIPELINE_CLASS, f"{TYPES}.Constant")


def _join(a, b):
    if a is None:
        return b
    if b is None or a == b:
        return a
    return TOP


class Scope:
    def __init__(self, node, parent: "Scope | None", kind: str):
        self.node = node
        self.parent = parent
        self.kind = kind  # module | class | function | lambda | comprehension
        self.bindings: dict[str, list] = {}
        self.declared_global: set[str] = set()
        self.declared_nonlocal: set[str] = set()
        self.self_name: str | None = None  # first parameter of a method
        self.class_scope: "Scope | None" = None  # the class a method belongs to
        self.attr_bindings: dict[str, list] = {}  # class scopes: self.X bindings from its methods

    def bind(self, name: str, source) -> None:
        self.bindings.setdefault(name, []).append(source)

    def lookup_parent(self) -> "Scope | None":
        """Enclosing scope for name lookup: class bodies do not enclose their methods."""
        parent = self.parent
        while parent is not None and parent.kind == "class" and self.kind != "comprehension":
            parent = parent.parent
        return parent


def _is_pipeline_def_decorator(decorator: cst.Decorator, imports: ImportTable) -> bool:
    expr = decorator.decorator
    if isinstance(expr, cst.Call):
        expr = expr.func
    return imports.qualname(expr) == PIPELINE_DEF


class _Collector(cst.CSTVisitor):
    """Builds the scope tree, records every binding and the scope of every Name."""

    def __init__(self, imports: ImportTable):
        super().__init__()
        self.imports = imports
        self.module_scope: Scope | None = None
        self.stack: list[Scope] = []
        self.scope: Scope | None = None
        self.scopes: list[Scope] = []
        self.name_scope: dict[cst.Name, Scope] = {}
        self.pipeline_classes: set[str] = set()
        self.graph_functions: set[cst.FunctionDef] = set()
        self.calls_dali = False  # any call of fn/ops/math/Pipeline/a @pipeline_def function

    # -- scopes -------------------------------------------------------------------------------
    def _push(self, scope: Scope) -> Scope:
        self.scopes.append(scope)
        self.stack.append(scope)
        self.scope = scope  # the innermost scope (an attribute: visit_Name reads it for every name)
        return scope

    def _pop(self) -> None:
        self.stack.pop()
        self.scope = self.stack[-1] if self.stack else None

    def visit_Module(self, node):
        self.module_scope = self._push(Scope(node, None, "module"))

    def visit_ClassDef(self, node):
        kind = TOP
        for base in node.bases:
            if self.imports.qualname(base.value) == PIPELINE_CLASS or (
                    isinstance(base.value, cst.Name) and base.value.value in self.pipeline_classes):
                kind = PIPELINE_FACTORY
        if kind == PIPELINE_FACTORY:
            self.pipeline_classes.add(node.name.value)
            self.calls_dali = True
        self.scope.bind(node.name.value, ("kind", kind))
        for decorator in node.decorators:
            walk(decorator, self)
        for base in (*node.bases, *node.keywords):
            walk(base, self)
        self._push(Scope(node, self.scope, "class"))
        walk(node.body, self)
        self._pop()
        return False

    def visit_FunctionDef(self, node):
        is_pipeline = any(_is_pipeline_def_decorator(d, self.imports) for d in node.decorators)
        self.calls_dali = self.calls_dali or is_pipeline
        self.scope.bind(node.name.value, ("kind", PIPELINE_FACTORY if is_pipeline else TOP))
        outer = self.scope
        if is_pipeline or (outer.kind == "class" and node.name.value == "define_graph"):
            self.graph_functions.add(node)
        for decorator in node.decorators:
            walk(decorator, self)
        self._visit_param_defaults(node.params)
        if node.returns is not None:
            walk(node.returns, self)
        scope = Scope(node, outer, "function")
        if outer.kind == "class":
            scope.class_scope = outer
            positional = [*node.params.posonly_params, *node.params.params]
            if positional and not any(self._is_staticmethod(d) for d in node.decorators):
                scope.self_name = positional[0].name.value
        self._push(scope)
        self._bind_params(node.params)
        walk(node.body, self)
        self._pop()
        return False

    @staticmethod
    def _is_staticmethod(decorator: cst.Decorator) -> bool:
        return isinstance(decorator.decorator, cst.Name) and decorator.decorator.value in (
            "staticmethod", "classmethod")

    def _visit_param_defaults(self, params: cst.Parameters):
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            if param.default is not None:
                walk(param.default, self)
            if param.annotation is not None:
                walk(param.annotation, self)

    def _bind_params(self, params: cst.Parameters):
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            self.scope.bind(param.name.value, ("kind", TOP))
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self.scope.bind(star.name.value, ("kind", TOP))

    def visit_Lambda(self, node):
        self._visit_param_defaults(node.params)
        self._push(Scope(node, self.scope, "lambda"))
        self._bind_params(node.params)
        walk(node.body, self)
        self._pop()
        return False

    def _visit_comprehension(self, node, elements):
        # The first iterable is evaluated in the enclosing scope; the rest in the comprehension's.
        first = node.for_in
        walk(first.iter, self)
        self._push(Scope(node, self.scope, "comprehension"))
        comp = first
        while comp is not None:
            if comp is not first:
                walk(comp.iter, self)
            self._bind_target(comp.target, ("iter", comp.iter))
            walk(comp.target, self)
            for condition in comp.ifs:
                walk(condition, self)
            comp = comp.inner_for_in
        for element in elements:
            walk(element, self)
        self._pop()
        return False

    def visit_ListComp(self, node):
        return self._visit_comprehension(node, [node.elt])

    def visit_SetComp(self, node):
        return self._visit_comprehension(node, [node.elt])

    def visit_GeneratorExp(self, node):
        return self._visit_comprehension(node, [node.elt])

    def visit_DictComp(self, node):
        return self._visit_comprehension(node, [node.key, node.value])

    def visit_Call(self, node):
        qualname = self.imports.qualname(node.func)
        if qualname is not None and qualname.startswith(_DALI_CALLS):
            self.calls_dali = True
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "append" and isinstance(func.value, cst.Name) \
                and len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star:
            # `outs.append(pipe.run())` makes `outs` a list of outputs (every other binding must agree).
            scope = self.scope
            while scope.kind == "comprehension" and scope.parent is not None:
                scope = scope.parent
            scope.bind(func.value.value, ("append", node.args[0].value))

    # -- bindings -----------------------------------------------------------------------------
    def visit_Name(self, node):
        self.name_scope[node] = self.scope

    def visit_Assign(self, node):
        for target in node.targets:
            self._bind_target(target.target, ("expr", node.value))

    def visit_AnnAssign(self, node):
        self._bind_target(node.target, ("expr", node.value) if node.value is not None else ("kind", TOP))

    def visit_AugAssign(self, node):
        self._bind_target(node.target, ("arith", node.target, node.value))

    def visit_For(self, node):
        self._bind_target(node.target, ("iter", node.iter))

    def visit_NamedExpr(self, node):
        scope = self.scope
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
        if isinstance(node.target, cst.Name):
            scope.bind(node.target.value, ("expr", node.value))

    def visit_WithItem(self, node):
        if node.asname is not None:
            self._bind_target(node.asname.name, ("kind", TOP))

    def visit_ExceptHandler(self, node):
        if node.name is not None and isinstance(node.name.name, cst.Name):
            self.scope.bind(node.name.name.value, ("kind", TOP))

    def visit_Import(self, node):
        for alias in node.names:
            local = alias.asname.name if alias.asname else alias.name
            while isinstance(local, cst.Attribute):
                local = local.value
            if isinstance(local, cst.Name):
                self.scope.bind(local.value, ("kind", TOP))
        return False

    def visit_ImportFrom(self, node):
        if not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                local = alias.asname.name if alias.asname else alias.name
                if isinstance(local, cst.Name):
                    self.scope.bind(local.value, ("kind", TOP))
        return False

    def visit_Global(self, node):
        for item in node.names:
            self.scope.declared_global.add(item.name.value)

    def visit_Nonlocal(self, node):
        for item in node.names:
            self.scope.declared_nonlocal.add(item.name.value)

    def visit_MatchAs(self, node):
        if node.name is not None:
            self.scope.bind(node.name.value, ("kind", TOP))

    def visit_MatchStar(self, node):
        if node.name is not None:
            self.scope.bind(node.name.value, ("kind", TOP))

    def visit_MatchMapping(self, node):
        if node.rest is not None:
            self.scope.bind(node.rest.value, ("kind", TOP))

    def _bind_target(self, target, source):
        if isinstance(target, cst.Name):
            self.scope.bind(target.value, source)
        elif isinstance(target, (cst.Tuple, cst.List)):
            if source[0] == "iter" and _is_enumerate(source[1]) and len(target.elements) == 2:
                self._bind_target(target.elements[0].value, ("kind", TOP))
                self._bind_target(target.elements[1].value, ("iter", source[1].args[0].value))
                return
            for index, element in enumerate(target.elements):
                if isinstance(element, cst.StarredElement):
                    self._bind_target(element.value, ("star", source))
                else:
                    self._bind_target(element.value, ("elem", source, index, len(target.elements)))
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
            method = self._method_scope()
            if method is not None and target.value.value == method.self_name:
                # The source only: holding the method's scope here made a class <-> method cycle, which kept
                # the whole tree alive until the cyclic collector ran.
                method.class_scope.attr_bindings.setdefault(target.attr.value, []).append(source)
        # Subscript and other targets bind no name.

    def _method_scope(self) -> Scope | None:
        for scope in reversed(self.stack):
            if scope.kind == "function":
                return scope if scope.self_name else None
        return None


def _is_enumerate(expr) -> bool:
    return (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "enumerate"
            and len(expr.args) == 1 and expr.args[0].keyword is None and not expr.args[0].star)


def _num_outputs_kwarg(call: cst.Call):
    """external_source, python_function, ... return a list when num_outputs > 1 whatever the schema says."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "num_outputs":
            if isinstance(arg.value, cst.Integer):
                count = int(arg.value.evaluated_value)
                return DATANODE if count == 1 else DATANODES if count > 1 else TOP
            return TOP
    return None


def _fn_outputs(qualname: str):
    """DATANODE / DATANODES / TOP for a call of the fn op ``qualname``."""
    _, _, entry = optable.resolve_fn(qualname[len(FN) + 1:])
    if not entry:
        return TOP
    outputs = entry.get("outputs")
    if outputs == 1:
        return DATANODE
    if isinstance(outputs, int) and outputs > 1:
        return DATANODES
    return TOP


class DataFlow:
    """The answers: ``kind_of(expr)`` for expressions of the analysed (original) module."""

    def __init__(self, module: cst.Module, imports: ImportTable):
        self.imports = imports
        collector = _Collector(imports)
        walk(module, collector)  # read-only: no rebuild
        self.module_scope = collector.module_scope
        self.name_scope = collector.name_scope
        self.graph_functions = collector.graph_functions
        self.calls_dali = collector.calls_dali  # False: no value in this module can be DALI
        self._kinds: dict[tuple[int, str], object] = {}
        self._attr_kinds: dict[tuple[int, str], object] = {}
        self._scopes = collector.scopes
        self._solve()

    def _solve(self) -> None:
        for _ in range(20):  # the lattice is 3 levels deep; this converges in a few rounds
            changed = False
            for scope in self._scopes:
                for name, sources in scope.bindings.items():
                    key = (id(scope), name)
                    kind = self._kinds.get(key)
                    for source in sources:
                        kind = _join(kind, self._source_kind(source))
                    if kind != self._kinds.get(key):
                        self._kinds[key] = kind
                        changed = True
                for attr, sources in scope.attr_bindings.items():
                    key = (id(scope), attr)
                    kind = self._attr_kinds.get(key)
                    for source in sources:
                        kind = _join(kind, self._source_kind(source))
                    if kind != self._attr_kinds.get(key):
                        self._attr_kinds[key] = kind
                        changed = True
            if not changed:
                break

    # -- queries ------------------------------------------------------------------------------
    def dali_names(self) -> set[str]:
        """Every name and self-attribute name that has a DALI kind in some scope (a superset, by name)."""
        names = {name for (_, name), kind in self._kinds.items() if kind is not None and kind != TOP}
        names.update(attr for (_, attr), kind in self._attr_kinds.items() if kind is not None and kind != TOP)
        return names

    def kind_of(self, expr) -> str:
        kind = self._eval(expr)
        return TOP if kind is None else kind

    def is_dali(self, expr, *kinds) -> bool:
        return self.kind_of(expr) in kinds

    # -- evaluation ---------------------------------------------------------------------------
    def _source_kind(self, source):
        tag = source[0]
        if tag == "kind":
            return source[1]
        if tag == "expr":
            return self._eval(source[1])
        if tag == "elem":
            parent, index, count = source[1], source[2], source[3]
            if parent[0] == "expr" and isinstance(parent[1], (cst.Tuple, cst.List)):
                elements = parent[1].elements
                if len(elements) == count and not any(isinstance(e, cst.StarredElement) for e in elements):
                    return self._eval(elements[index].value)
                return TOP
            return self._element(self._source_kind(parent))
        if tag == "star":
            inner = self._source_kind(source[1])
            return OUTPUTS if inner == OUTPUTS else (None if inner is None else TOP)
        if tag == "iter":
            return self._element(self._eval(source[1]))
        if tag == "arith":
            return self._arith([self._eval(source[1]), self._eval(source[2])])
        if tag == "append":
            element = self._eval(source[1])
            return OUTPUTS_LIST if element == OUTPUTS else (None if element is None else TOP)
        return TOP

    @staticmethod
    def _element(kind):
        if kind is None:
            return None
        if kind == OUTPUTS:
            return TENSORLIST
        if kind == OUTPUTS_LIST:
            return OUTPUTS
        if kind == DATANODES:
            return DATANODE
        return TOP

    @staticmethod
    def _arith(kinds):
        if DATANODE in kinds:
            return DATANODE
        if None in kinds:
            return None
        return TOP

    def _lookup(self, name: cst.Name):
        scope = self.name_scope.get(name)
        if scope is None:
            return TOP
        value = name.value
        while scope is not None:
            if value in scope.declared_global or value in scope.declared_nonlocal:
                return TOP  # rebound from elsewhere: give up
            if value in scope.bindings:
                return self._kinds.get((id(scope), value))
            scope = scope.lookup_parent()
        return TOP  # a builtin or an undefined name

    def is_builtin(self, name: cst.Name) -> bool:
        """True when ``name`` is not bound anywhere in its scope chain (so it is the builtin)."""
        scope = self.name_scope.get(name)
        if scope is None:
            return False
        while scope is not None:
            if name.value in scope.bindings or name.value in scope.declared_global:
                return False
            scope = scope.lookup_parent()
        return True

    def _self_attr(self, node: cst.Attribute):
        if not isinstance(node.value, cst.Name):
            return TOP
        scope = self.name_scope.get(node.value)
        while scope is not None and scope.kind in ("comprehension", "lambda"):
            scope = scope.parent
        if scope is None or scope.kind != "function" or scope.self_name != node.value.value \
                or scope.class_scope is None:
            return TOP
        if node.value.value in scope.bindings and len(scope.bindings[node.value.value]) > 1:
            return TOP  # `self` itself reassigned
        key = (id(scope.class_scope), node.attr.value)
        if key not in self._attr_kinds and node.attr.value not in scope.class_scope.attr_bindings:
            return TOP
        return self._attr_kinds.get(key)

    def _eval(self, expr):
        if isinstance(expr, cst.Name):
            return self._lookup(expr)
        if isinstance(expr, cst.Attribute):
            return self._self_attr(expr)
        if isinstance(expr, cst.Call):
            return self._call(expr)
        if isinstance(expr, cst.Subscript):
            return self._subscript(expr)
        if isinstance(expr, cst.BinaryOperation):
            return self._arith([self._eval(expr.left), self._eval(expr.right)])
        if isinstance(expr, cst.UnaryOperation):
            if isinstance(expr.operator, cst.Not):
                return TOP
            return self._arith([self._eval(expr.expression)])
        if isinstance(expr, cst.Comparison):
            return self._arith([self._eval(expr.left), *(self._eval(c.comparator) for c in expr.comparisons)])
        if isinstance(expr, cst.IfExp):
            return _join(self._eval(expr.body), self._eval(expr.orelse))
        if isinstance(expr, cst.List) and not expr.elements:
            return None  # an empty list says nothing yet: what is appended to it decides
        if isinstance(expr, cst.ListComp):
            element = self._eval(expr.elt)
            return OUTPUTS_LIST if element == OUTPUTS else (None if element is None else TOP)
        return TOP

    def _call(self, call: cst.Call):
        func = call.func
        qualname = self.imports.qualname(func)
        if qualname is not None:
            if qualname == PIPELINE_CLASS:
                return PIPELINE
            if qualname.startswith(FN + "."):
                return _num_outputs_kwarg(call) or _fn_outputs(qualname)
            if qualname.startswith(MATH + ".") or qualname == f"{TYPES}.Constant":
                return DATANODE
            if qualname.startswith(OPS + "."):
                return ("ops", qualname[len(OPS) + 1:])
        if isinstance(func, cst.Name):
            kind = self._lookup(func)
            if kind == PIPELINE_FACTORY:
                return PIPELINE
            return self._op_instance_call(kind)
        if isinstance(func, cst.Attribute):
            if qualname is None:
                kind = self._self_attr(func)
                if kind is not None and kind != TOP and isinstance(kind, tuple):
                    return self._op_instance_call(kind)
            owner = self._eval(func.value)
            if owner is None:
                return None
            method = func.attr.value
            if owner == PIPELINE and method in _RUN_METHODS:
                return OUTPUTS
            if owner == TENSORLIST and method == "as_cpu":
                return TENSORLIST
            if owner == TENSORLIST and method == "as_tensor":
                return TENSOR  # TensorCPU then, ndd.as_tensor(batch) (a Tensor) once rewritten
            if owner == DATANODE and method in ("gpu", "cpu"):
                return DATANODE
            return TOP
        return TOP

    @staticmethod
    def _op_instance_call(kind):
        """Calling a legacy ``ops.X(...)`` object returns its DataNode(s)."""
        if kind is None:
            return None
        if isinstance(kind, tuple) and kind[0] == "ops":
            entry = optable.ops_class(kind[1])
            if entry and entry.get("fn"):
                return _fn_outputs(f"{FN}.{entry['fn']}")
        return TOP

    def _subscript(self, node: cst.Subscript):
        owner = self._eval(node.value)
        if owner is None:
            return None
        single = len(node.slice) == 1
        is_slice = single and isinstance(node.slice[0].slice, cst.Slice)
        if owner == DATANODE:
            return DATANODE
        if not single:
            return TOP
        if owner == OUTPUTS:
            return OUTPUTS if is_slice else TENSORLIST
        if owner == OUTPUTS_LIST:
            return OUTPUTS_LIST if is_slice else OUTPUTS
        if owner == DATANODES and not is_slice:
            return DATANODE
        if owner == TENSORLIST and not is_slice:
            return TENSOR
        return TOP
