"""What one walk of a module collects for the flow model (``dataflow.py``), before anything is solved.

The scope tree (``Scope``: module, class, function, lambda, comprehension) with every binding of every name as a
*source* (how the name gets its value: the list below), the module's functions (``Function``: parameters, what it
returns or yields), its classes and the attributes their methods and other code store, every call (with those a
test runner makes: ``flow_runner_cases.py``), the pipelines' definitions (``@pipeline_def``, ``with pipe:``,
Pipeline subclasses) and the names read and bound inside them, the operators named outside them (their sites), and
the statements around each binding and read (for ``reaching``). ``_Collector`` is the walk; ``DataFlow`` takes its
tables.
"""

from __future__ import annotations

import libcst as cst

from .names import NDD, ImportTable, dotted, import_bindings
from .flow_values import (_DALI_CALLS, _empty_dict, GENERATOR_FACTORY, _is_enumerate, _is_zip, _items_call,
                          _NO_ORIGINS, operator_path, ops_object_path, PIPELINE_CLASS, PIPELINE_DEF, PIPELINE_FACTORY,
                          SITE_PREFIX, STREAM_FACTORY, UNKNOWN, value, _zip_inputs)
from .flow_runner_cases import _parametrized_cases, _test_case
from .walk import walk


# -- scopes and what binds names -----------------------------------------------------------------

class Scope:
    """A module, class, function, lambda or comprehension: its name bindings (sources, below)."""

    __slots__ = ("node", "parent", "kind", "bindings", "declared_global", "declared_nonlocal", "function",
                 "class_node", "graph_sources", "statement_depth")

    def __init__(self, node, parent: "Scope | None", kind: str):
        self.node = node
        self.parent = parent
        self.kind = kind  # module | class | function | lambda | comprehension
        self.bindings: dict[str, list] = {}
        self.declared_global: set[str] = set()
        self.declared_nonlocal: set[str] = set()
        self.function: "Function | None" = None
        self.class_node = None  # the class a method belongs to
        self.graph_sources: set[tuple[str, int]] = set()  # (name, binding index) bound inside a pipeline's definition
        self.statement_depth = 0  # the collector's statement stack when the scope began

    def bind(self, name: str, source) -> None:
        self.bindings.setdefault(name, []).append(source)

    def lookup_parent(self) -> "Scope | None":
        """Enclosing scope for name lookup: class bodies do not enclose their methods."""
        parent = self.parent
        while parent is not None and parent.kind == "class" and self.kind != "comprehension":
            parent = parent.parent
        return parent

    def lookup_scope(self, name: str) -> "Scope | None":
        """The scope whose binding of ``name`` a read here sees (None: a builtin or an undefined name).
        A ``global`` name is the module's; a ``nonlocal`` one an enclosing function's."""
        scope: Scope | None = self
        while scope is not None:
            if name in scope.declared_global:
                root = scope
                while root.parent is not None:
                    root = root.parent
                return root if name in root.bindings else None
            if name in scope.bindings and name not in scope.declared_nonlocal:
                return scope
            scope = scope.lookup_parent()
        return None


class Function:
    """A def or lambda of the module: its parameters, what it returns or yields, who calls it."""

    __slots__ = ("node", "params", "returns", "yields", "class_node", "bound", "escapes", "name", "pipeline")

    def __init__(self, node, name: str):
        # No reference to its scope: the scope's bindings refer to the function (its parameters), and a
        # cycle would keep the whole tree alive until the cyclic collector ran.
        self.node = node
        self.name = name
        # (name, "pos" | "kw" | "star" | "starstar", default expression or None)
        self.params: list[tuple[str, str, object]] = []
        self.returns: list = []  # expressions of `return x` (a lambda's body)
        self.yields: list = []  # ("expr", e) for `yield e`, ("from", e) for `yield from e`
        self.class_node = None
        self.bound = False  # a method whose first parameter is the instance
        self.escapes = False  # referenced other than as a callee: other callers are invisible
        self.pipeline = None  # the origin, for a @pipeline_def function


# Sources (how a name gets its value), as tuples:
#   ("value", v)                      a known value (or None)
#   ("expr", e)                       the value of expression e
#   ("elem", source, index, count)    element `index` of a `count`-target unpacking of source
#   ("star", source)                  the starred target of such an unpacking
#   ("iter", e)                       an element of iterable e (loop and comprehension targets)
#   ("elem_of", source)               an element of source's value
#   ("arith", a, b)                   a op= b
#   ("append", e) / ("store", e, map) a container that gets e (xs.append(e), x[k] = e)
#   ("param", function, name)         what the function's call sites pass
#   ("self", class node)              the instance a method runs on
#   ("listify", source)               `if not isinstance(x, list): x = [x]`: source's value as a list


class _Collector(cst.CSTVisitor):
    """One walk: the scope tree, every binding, every function, call and attribute store."""

    def __init__(self, imports: ImportTable, extra_pipelines: dict[str, str] | None,
                 imported_generators: dict | None = None):
        super().__init__()
        self.imports = imports
        self.extra_pipelines = extra_pipelines or {}
        self.imported_generators = imported_generators or {}
        self.stack: list[Scope] = []
        self.scope: Scope | None = None
        self.scopes: list[Scope] = []
        self.scope_by_node: dict = {}
        self.name_scope: dict[cst.Name, Scope] = {}
        self.functions: dict = {}  # def/lambda node -> Function
        self.classes: dict = {}  # class node -> (name, base expressions, methods {name: def node}, is_pipeline)
        self.class_attrs: dict = {}  # (class node, attr) -> [source]
        self.class_attr_methods: dict = {}  # (class node, attr) -> {the names of the methods that assign it}
        self.attr_stores: list = []  # (owner expression, attr, source): `obj.x = v` outside the class
        self.calls: list[tuple[cst.Call, Scope]] = []  # every call, for the parameters of the callees
        self.helper_cases: list[tuple[cst.Call, Scope]] = []  # `yield check, a` in generators not named test*
        self.callees: set[cst.CSTNode] = set()  # expressions in callee position
        self.pipeline_calls: dict[cst.Call, str] = {}  # Pipeline(...) call -> its origin key
        self.graph_origin: dict[cst.CSTNode, str] = {}  # call inside a pipeline definition -> that pipeline
        self.graph_stack: list[str] = []
        self.graph_names: set[cst.Name] = set()  # names read inside a pipeline's definition
        self.with_origin: dict[cst.With, str] = {}  # `with pipe:` -> the pipeline its body defines
        self.function_names: list[str] = []  # enclosing defs, for `with pipe:` origin keys
        self.defined_in: dict[cst.FunctionDef, Scope] = {}  # a def -> the scope its name is bound in
        self.calls_dali = False
        self.pipeline_classes: set[str] = set()
        self.dict_names: set[tuple[int, str]] = set()  # (scope id, name) bound to a dict somewhere
        self.not_references: set[cst.Name] = set()  # attribute names and keywords: not reads of a name
        # The order of bindings and reads (``reaching``): the statements around each, innermost last.
        self.statements: list[cst.CSTNode] = []
        self.binding_chain: dict[tuple[int, str, int], tuple] = {}
        self.read_statement: dict[cst.Name, cst.CSTNode] = {}
        self.unordered: set[tuple[int, str]] = set()  # bound from another scope (global, nonlocal)
        self.elifs: set[cst.If] = set()
        self.pipeline_defs: set[str] = set()  # @pipeline_def functions (their origins)
        self.attributes: list[cst.Attribute] = []
        self.super_calls: dict[cst.Call, cst.ClassDef] = {}  # `super().m(...)` in a method -> its class
        self.listify_assigns: set[cst.Assign] = set()  # `x = [x]` under `if not isinstance(x, list):`
        self.operator_sites: dict[cst.CSTNode, str] = {}  # operator named outside a definition -> its site origin
        self.function_sites: dict[cst.CSTNode, frozenset] = {}  # def or lambda -> the operator sites in its body
        self._site_sets: list[set] = []  # the sites of the defs and lambdas being walked, innermost last
        self._called_names: list[set] = []  # the names they call, likewise
        self.site_calls: dict[cst.CSTNode, set] = {}  # def or lambda -> the names it calls

    # -- scopes -------------------------------------------------------------------------------
    def _bind(self, scope: Scope, name: str, source) -> None:
        """``scope.bind``, noting a binding made inside a pipeline's definition (a DataNode's name)."""
        scope.bind(name, source)
        index = len(scope.bindings[name]) - 1
        if self.graph_stack:
            scope.graph_sources.add((name, index))
        here = self.scope
        while here is not None and here.kind == "comprehension":
            here = here.parent  # a walrus in a comprehension binds where the comprehension is
        if here is scope:
            self.binding_chain[(id(scope), name, index)] = tuple(self.statements[scope.statement_depth:])
        else:
            self.unordered.add((id(scope), name))

    def _site(self, node, qualname: str) -> None:
        """``node`` names a pipeline-mode operator outside the pipelines' definitions: an origin of its own."""
        short = qualname.replace("nvidia.dali.", "", 1)
        origin = f"{SITE_PREFIX}{short} {len(self.operator_sites) + 1}>"
        self.operator_sites[node] = origin
        if self._site_sets:
            self._site_sets[-1].add(origin)

    def _walk_body(self, node, body) -> None:
        """Walk a def's or lambda's body, noting the operator sites in it (nested ones too) and the names it calls
        (``site_calls``: a lambda calling a local def that calls operators holds them too, ``with_called_sites``)."""
        self._site_sets.append(set())
        self._called_names.append(set())
        walk(body, self)
        sites = self._site_sets.pop()
        called = self._called_names.pop()
        self.function_sites[node] = frozenset(sites)
        if called:
            self.site_calls[node] = called
        if self._site_sets:
            self._site_sets[-1].update(sites)
            self._called_names[-1].update(called)

    def with_called_sites(self) -> None:
        """Each def's or lambda's sites joined with those of the module's defs it calls by name, transitively (a
        name may be several defs: all of them)."""
        by_name: dict[str, list] = {}
        for node in self.function_sites:
            if isinstance(node, cst.FunctionDef):
                by_name.setdefault(node.name.value, []).append(node)
        changed = True
        while changed:
            changed = False
            for node, names in self.site_calls.items():
                found = self.function_sites[node]
                for name in names:
                    for callee in by_name.get(name, ()):
                        found = found | self.function_sites[callee]
                if found != self.function_sites[node]:
                    self.function_sites[node] = found
                    changed = True

    def _push(self, scope: Scope) -> Scope:
        scope.statement_depth = len(self.statements)
        self.scopes.append(scope)
        self.scope_by_node[scope.node] = scope
        self.stack.append(scope)
        self.scope = scope
        return scope

    def _pop(self) -> None:
        self.stack.pop()
        self.scope = self.stack[-1] if self.stack else None

    def visit_Module(self, node):
        self._push(Scope(node, None, "module"))

    # -- statements, for the order of bindings and reads (``reaching``) ----------------------------
    def _enter_statement(self, node) -> None:
        self.statements.append(node)

    def _leave_statement(self, node) -> None:
        self.statements.pop()

    def visit_If(self, node):
        listified = _listify_idiom(node)
        if listified is not None:
            self.listify_assigns.add(listified)
        if isinstance(node.orelse, cst.If):
            self.elifs.add(node.orelse)
        if node not in self.elifs:  # an elif belongs to the statement of its first If
            self.statements.append(node)

    def leave_If(self, node):
        if node not in self.elifs:
            self.statements.pop()

    visit_SimpleStatementLine = visit_While = visit_Try = visit_TryStar = visit_Match = _enter_statement
    leave_SimpleStatementLine = leave_While = leave_Try = leave_TryStar = leave_Match = _leave_statement
    leave_For = leave_With = leave_FunctionDef = leave_ClassDef = _leave_statement

    def _binding_scope(self, name: str) -> Scope:
        """Where an assignment to ``name`` here binds: ``global``/``nonlocal`` move it out."""
        scope = self.scope
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent  # a walrus in a comprehension binds in the enclosing scope
        if name in scope.declared_global:
            return self.stack[0]
        if name in scope.declared_nonlocal:
            outer = scope.lookup_parent()
            while outer is not None and outer.kind != "module":
                if name in outer.bindings:
                    return outer
                outer = outer.lookup_parent()
        return scope

    def visit_ClassDef(self, node):
        self.statements.append(node)
        is_pipeline = False
        for base in node.bases:
            qualname = self.imports.qualname(base.value)
            if qualname == PIPELINE_CLASS or (isinstance(base.value, cst.Name)
                                              and base.value.value in self.pipeline_classes):
                is_pipeline = True
        name = node.name.value
        if is_pipeline:
            self.pipeline_classes.add(name)
            self.calls_dali = True
        methods = {s.name.value: s for s in node.body.body if isinstance(s, cst.FunctionDef)}
        self.classes[node] = (name, [b.value for b in node.bases], methods, is_pipeline)
        origin = self.extra_pipelines.get(name)
        if is_pipeline:
            self._bind(self.scope, name, ("value", value(PIPELINE_FACTORY, frozenset((name,)))))
        else:  # a migrated pipeline class is a plain class whose instances carry the pipeline's origin
            self._bind(self.scope, name, ("value", value(("class", node), frozenset((origin,)) if origin else _NO_ORIGINS)))
        for decorator in node.decorators:
            walk(decorator, self)
        for base in (*node.bases, *node.keywords):
            walk(base, self)
        scope = self._push(Scope(node, self.scope, "class"))
        scope.class_node = node
        if is_pipeline:
            self.graph_stack.append(name)
        walk(node.body, self)
        if is_pipeline:
            self.graph_stack.pop()
        self._pop()
        return False

    def visit_FunctionDef(self, node):
        self.statements.append(node)
        name = node.name.value
        is_pipeline = any(_is_pipeline_def(d, self.imports) for d in node.decorators)
        outer = self.scope
        self.calls_dali = self.calls_dali or is_pipeline
        function = Function(node, name)
        origin = self.extra_pipelines.get(name) if outer.kind != "class" else None
        if is_pipeline:
            function.pipeline = name
            self.pipeline_defs.add(name)
            self._bind(outer, name, ("value", value(PIPELINE_FACTORY, frozenset((name,)))))
        elif origin:
            function.pipeline = origin
            self._bind(outer, name, ("value", value(("function", node), frozenset((origin,)))))
            self.defined_in[node] = outer
        elif outer.kind == "class":
            self._bind(outer, name, ("def", node))
            self.defined_in[node] = outer
        else:
            self.defined_in[node] = self._binding_scope(name)
            self._bind(self.defined_in[node], name, ("def", node))
        for decorator in node.decorators:
            walk(decorator, self)
        if outer.kind != "class":
            callee = cst.Name(name)  # (a name of its own, read in the enclosing scope like a call's)
            for case in _parametrized_cases(node, callee, self.imports):  # the test runner calls it with each case
                self.name_scope[callee] = outer
                self.calls.append((case, outer))
                self.callees.add(case.func)
        self._visit_param_defaults(node.params)
        if node.returns is not None:
            walk(node.returns, self)
        scope = Scope(node, outer, "function")
        scope.function = function
        self.functions[node] = function
        if outer.kind == "class":
            scope.class_node = outer.node
            function.class_node = outer.node
            function.bound = not any(_is_static(d) for d in node.decorators)
        self._push(scope)
        self._bind_params(node.params, function)
        self.function_names.append(name)
        graph = is_pipeline or origin
        if graph:
            self.graph_stack.append(function.pipeline)
        outside_graph = outer.kind == "class" and name == "iter_setup"  # plain Python run before each step
        graph_stack, self.graph_stack = self.graph_stack, ([] if outside_graph else self.graph_stack)
        self._walk_body(node, node.body)
        self.graph_stack = graph_stack
        if graph:
            self.graph_stack.pop()
        self.function_names.pop()
        self._pop()
        return False

    def visit_Lambda(self, node):
        self._visit_param_defaults(node.params)
        function = Function(node, "<lambda>")
        scope = self._push(Scope(node, self.scope, "lambda"))
        scope.function = function
        function.returns.append(node.body)
        self.functions[node] = function
        self._bind_params(node.params, function)
        self._walk_body(node, node.body)
        self._pop()
        return False

    def _visit_param_defaults(self, params: cst.Parameters):
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            if param.default is not None:
                walk(param.default, self)
            if param.annotation is not None:
                walk(param.annotation, self)

    def _bind_params(self, params: cst.Parameters, function: Function):
        positional = [*params.posonly_params, *params.params]
        for index, param in enumerate(positional):
            name = param.name.value
            function.params.append((name, "pos", param.default))
            if index == 0 and function.bound:
                self._bind(self.scope, name, ("self", function.class_node))
            else:
                self._bind(self.scope, name, self._param_source(function, param))
        if isinstance(params.star_arg, cst.Param):
            function.params.append((params.star_arg.name.value, "star", None))
            self._bind(self.scope, params.star_arg.name.value, ("value", UNKNOWN))
        for param in params.kwonly_params:
            function.params.append((param.name.value, "kw", param.default))
            self._bind(self.scope, param.name.value, self._param_source(function, param))
        if isinstance(params.star_kwarg, cst.Param):
            function.params.append((params.star_kwarg.name.value, "starstar", None))
            self._bind(self.scope, params.star_kwarg.name.value, ("value", UNKNOWN))

    def _param_source(self, function: Function, param: cst.Param):
        if param.annotation is not None:
            path = self.imports.qualname(param.annotation.annotation)
            if path == f"{NDD}.Batch":
                return ("value", value("batch"))
            if path == f"{NDD}.Tensor":
                return ("value", value("tensor"))
        return ("param", function, param.name.value)

    def _visit_comprehension(self, node, elements):
        # The first iterable is evaluated in the enclosing scope; the rest in the comprehension's.
        first = node.for_in
        walk(first.iter, self)
        self._push(Scope(node, self.scope, "comprehension"))
        comp = first
        while comp is not None:
            if comp is not first:
                walk(comp.iter, self)
            self._bind_loop_target(comp.target, comp.iter, self.scope)
            walk(comp.target, self)
            for condition in comp.ifs:
                walk(condition, self)
            comp = comp.inner_for_in
        for element_node in elements:
            walk(element_node, self)
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

    # -- calls, returns, yields -----------------------------------------------------------------
    def visit_Call(self, node):
        qualname = self.imports.qualname(node.func)
        if qualname is not None and qualname.startswith(_DALI_CALLS):
            self.calls_dali = True
        self.calls.append((node, self.scope))
        self.callees.add(node.func)
        if self._called_names and isinstance(node.func, cst.Name):
            self._called_names[-1].add(node.func.value)
        method = self._method() if _super_call(node) else None
        if method is not None:
            self.super_calls[node] = method.class_node
        if self.graph_stack:
            self.graph_origin[node] = self.graph_stack[-1]
        elif operator_path(qualname) or ops_object_path(qualname):
            self._site(node, qualname)  # graph code outside a definition: `pipe.set_outputs(...)` may take it
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("append", "add", "insert") and node.args \
                and not any(a.star for a in node.args):
            # `outs.append(pipe.run())`: `outs` is a container of outputs (every other binding must agree).
            item = node.args[-1].value
            if isinstance(func.value, cst.Name):
                self._bind(self._binding_scope(func.value.value), func.value.value, ("append", item))
            elif isinstance(func.value, cst.Attribute):
                self.attr_stores.append((func.value.value, func.value.attr.value, ("append", item)))

    def visit_Return(self, node):
        function = self._function()
        if function is not None and node.value is not None:
            function.returns.append(node.value)

    def visit_Yield(self, node):
        function = self._function()
        case = _test_case(function, node)
        if case is not None:  # nose's test generator: `yield check, a, b` is the call check(a, b)
            self.calls.append((case, self.scope))
            self.callees.add(case.func)
        elif function is not None and (case := _test_case(function, node, any_name=True)) is not None \
                and isinstance(case.func, cst.Name):
            # a helper generator a test delegates to (`yield from cases(...)`, maybe from another module): its
            # `yield check, a, b` is a case too where check is a function of this module (known at the end)
            self.helper_cases.append((case, self.scope))
        if function is not None:
            if isinstance(node.value, cst.From):
                function.yields.append(("from", node.value.item))
            elif node.value is not None:
                function.yields.append(("expr", node.value))
            else:
                function.yields.append(("none", None))

    def _function(self) -> Function | None:
        for scope in reversed(self.stack):
            if scope.kind in ("function", "lambda"):
                return scope.function
            if scope.kind in ("class", "module"):
                return None
        return None

    def visit_With(self, node):
        self.statements.append(node)
        # `with pipe:` over a Pipeline object: the calls inside build that pipeline's graph.
        for item in node.items:
            target = dotted(item.item) if isinstance(item.item, (cst.Name, cst.Attribute)) else None
            if target is None:
                continue
            key = self._with_key(target)
            if key in self.pipeline_calls.values():
                self.with_origin[node] = key
                for inner in node.items:
                    walk(inner, self)
                self.graph_stack.append(key)
                walk(node.body, self)
                self.graph_stack.pop()
                return False
        return True

    def _with_key(self, target: str) -> str:
        key = ".".join(self.function_names) + ":" + target
        if key in self.pipeline_calls.values():
            return key
        method = self._method()
        if method is not None and method.params and target.startswith(method.params[0][0] + "."):
            # `with self._pipe:` in another method than the `self._pipe = Pipeline(...)` of __init__
            created = ".".join([*self.function_names[:-1], "__init__"]) + ":" + target
            if created in self.pipeline_calls.values():
                return created
        if "." in target:
            return key
        return ":" + target  # a module-level pipeline used inside a function

    # -- bindings -----------------------------------------------------------------------------
    def visit_Name(self, node):
        if node not in self.not_references and node not in self.callees:
            qualname = self.imports.qualname(node)
            if operator_path(qualname) and self.scope.lookup_scope(node.value) is self.stack[0]:
                self._site(node, qualname)  # `from nvidia.dali.fn import flip`, then `flip` as a value
        if node not in self.not_references:
            self.name_scope[node] = self.scope
            if self.statements:
                self.read_statement[node] = self.statements[-1]
            if self.graph_stack:
                self.graph_names.add(node)

    def visit_Attribute(self, node):
        self.not_references.add(node.attr)
        self.attributes.append(node)
        if node not in self.callees:
            qualname = self.imports.qualname(node)
            if operator_path(qualname):
                self._site(node, qualname)  # `fn.flip` as a value: a table's entry, an argument, a default

    def visit_Arg(self, node):
        if node.keyword is not None:
            self.not_references.add(node.keyword)

    def visit_Assign(self, node):
        value_node = node.value
        if isinstance(value_node, cst.Call) and self.imports.qualname(value_node.func) == PIPELINE_CLASS \
                and len(node.targets) == 1:
            target = dotted(node.targets[0].target)
            if target is not None:
                self.pipeline_calls[value_node] = ".".join(self.function_names) + ":" + target
        if node in self.listify_assigns:
            # One value for the name, before and after the `if`: a list of what it was given (a list stays
            # itself), so `x` does not join one pipeline with a list of them.
            name = node.targets[0].target.value
            owner = self._binding_scope(name)
            earlier = owner.bindings.get(name, [])
            if len(earlier) == 1 and earlier[0][0] != "listify":
                earlier[0] = ("listify", earlier[0])
                self._bind(owner, name, earlier[0])
                return
        for target in node.targets:
            self._bind_target(target.target, ("expr", value_node))

    def visit_AnnAssign(self, node):
        path = self.imports.qualname(node.annotation.annotation)
        known = {f"{NDD}.Batch": "batch", f"{NDD}.Tensor": "tensor"}.get(path or "")
        if known:
            self._bind_target(node.target, ("value", value(known)))
        else:
            self._bind_target(node.target, ("expr", node.value) if node.value is not None else ("value", UNKNOWN))

    def visit_AugAssign(self, node):
        self._bind_target(node.target, ("arith", node.target, node.value))

    def visit_For(self, node):
        self.statements.append(node)
        self._bind_loop_target(node.target, node.iter, None)

    def _bind_loop_target(self, target, iterable, scope):
        """``for target in iterable``: enumerate, zip and dict.items() are seen through."""
        if _is_enumerate(iterable) and isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2:
            self._bind_target(target.elements[0].value, ("value", UNKNOWN), scope)
            self._bind_loop_target(target.elements[1].value, iterable.args[0].value, scope)
        elif _is_zip(iterable) and isinstance(target, (cst.Tuple, cst.List)) \
                and len(target.elements) == len(_zip_inputs(iterable)) \
                and not any(isinstance(e, cst.StarredElement) for e in target.elements):
            for element_node, arg in zip(target.elements, _zip_inputs(iterable)):
                self._bind_loop_target(element_node.value, arg.value, scope)
        elif _items_call(iterable) and isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2:
            self._bind_target(target.elements[0].value, ("key_of", iterable.func.value), scope)
            self._bind_target(target.elements[1].value, ("index_of", iterable.func.value), scope)
        else:
            self._bind_target(target, ("iter", iterable), scope)

    def visit_NamedExpr(self, node):
        if isinstance(node.target, cst.Name):
            owner = self._binding_scope(node.target.value)
            self._bind(owner, node.target.value, ("expr", node.value))
            self.unordered.add((id(owner), node.target.value))  # it may not run (a comprehension, `and`)

    def visit_WithItem(self, node):
        if node.asname is not None:
            self._bind_target(node.asname.name, ("value", UNKNOWN))

    def visit_ExceptHandler(self, node):
        if node.name is not None and isinstance(node.name.name, cst.Name):
            self._bind(self.scope, node.name.name.value, ("value", UNKNOWN))

    def visit_Import(self, node):
        for local in import_bindings(node):
            self._bind(self._binding_scope(local), local, ("value", UNKNOWN))
        return False

    def visit_ImportFrom(self, node):
        for local in import_bindings(node):
            origin = self.extra_pipelines.get(local)
            known = ("value", value(PIPELINE_FACTORY, frozenset((origin,)))) if origin else ("value", UNKNOWN)
            migrated = self.imported_generators.get(local)
            if migrated is not None:  # a pipeline another module migrated: a generator or a ReaderStream once called
                factory = STREAM_FACTORY if migrated.streamed else GENERATOR_FACTORY
                known = ("value", value(factory, frozenset((local,))))
            self._bind(self._binding_scope(local), local, known)
        return False

    def visit_Global(self, node):
        for item in node.names:
            self.scope.declared_global.add(item.name.value)

    def visit_Nonlocal(self, node):
        for item in node.names:
            self.scope.declared_nonlocal.add(item.name.value)

    def visit_Del(self, node):
        return True  # `del x` unbinds; the value it had stays what it was (flow-insensitive)

    def visit_MatchAs(self, node):
        if node.name is not None:
            self._bind(self.scope, node.name.value, ("value", UNKNOWN))

    def visit_MatchStar(self, node):
        if node.name is not None:
            self._bind(self.scope, node.name.value, ("value", UNKNOWN))

    def visit_MatchMapping(self, node):
        if node.rest is not None:
            self._bind(self.scope, node.rest.value, ("value", UNKNOWN))

    def _bind_target(self, target, source, scope=None):
        if isinstance(target, cst.Name):
            if scope is not None:
                self._bind(scope, target.value, source)
            else:
                owner = self._binding_scope(target.value)
                self._bind(owner, target.value, source)
                if source[0] == "expr" and (isinstance(source[1], (cst.Dict, cst.DictComp)) or _empty_dict(source[1])):
                    self.dict_names.add((id(owner), target.value))
        elif isinstance(target, (cst.Tuple, cst.List)):
            count = len(target.elements)
            for index, element_node in enumerate(target.elements):
                if isinstance(element_node, cst.StarredElement):
                    self._bind_target(element_node.value, ("star", source), scope)
                else:
                    self._bind_target(element_node.value, ("elem", source, index, count), scope)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value, ("star", source), scope)
        elif isinstance(target, cst.Attribute):
            method = self._method()
            if method is not None and isinstance(target.value, cst.Name) and method.params \
                    and target.value.value == method.params[0][0]:
                # self.x = ... in a method: an attribute of the class (the source only: holding the scope
                # here made a class <-> method cycle that kept the whole tree alive until the collector ran).
                self.class_attrs.setdefault((method.class_node, target.attr.value), []).append(source)
                self.class_attr_methods.setdefault((method.class_node, target.attr.value), set()).add(method.name)
            else:
                self.attr_stores.append((target.value, target.attr.value, source))
        elif isinstance(target, cst.Subscript):
            if source[0] == "expr" or source[0] in ("iter", "elem", "star"):
                inner = target.value
                item = ("store", source)
                if isinstance(inner, cst.Name):
                    self._bind(self._binding_scope(inner.value), inner.value, item)
                elif isinstance(inner, cst.Attribute):
                    self.attr_stores.append((inner.value, inner.attr.value, item))

    def _method(self) -> Function | None:
        for scope in reversed(self.stack):
            if scope.kind == "function":
                function = scope.function
                return function if function.bound else None
            if scope.kind in ("class", "module"):
                return None
        return None


def _super_call(node: cst.Call) -> bool:
    """``super().m(...)`` or ``super(Cls, self).m(...)``."""
    func = node.func
    return isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call) and isinstance(
        func.value.func, cst.Name) and func.value.func.value == "super" and len(func.value.args) in (0, 2)


def listed_name(test) -> str | None:
    """The name ``x`` that ``isinstance(x, list)`` tests (``list``, ``tuple`` or both), else None."""
    if not (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance"
            and len(test.args) == 2 and isinstance(test.args[0].value, cst.Name)):
        return None
    types = test.args[1].value
    names = [e.value for e in types.elements] if isinstance(types, cst.Tuple) else [types]
    if not names or not all(isinstance(n, cst.Name) and n.value in ("list", "tuple") for n in names):
        return None
    return test.args[0].value.value


def list_of_name(made, name: str) -> bool:
    """``made`` is ``[name]`` or ``(name,)``."""
    return isinstance(made, (cst.List, cst.Tuple)) and len(made.elements) == 1 \
        and not isinstance(made.elements[0], cst.StarredElement) \
        and isinstance(made.elements[0].value, cst.Name) and made.elements[0].value.value == name


def _listify_idiom(node: cst.If) -> cst.Assign | None:
    """``if not isinstance(x, list): x = [x]`` (``list``, ``tuple`` or both; ``(x,)`` too): the assignment."""
    test = node.test
    if node.orelse is not None or not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
        return None
    name = listed_name(test.expression)
    if name is None:
        return None
    body = node.body.body if isinstance(node.body, (cst.IndentedBlock, cst.SimpleStatementSuite)) else ()
    if len(body) != 1:
        return None
    line = body[0]
    small = line.body if isinstance(line, cst.SimpleStatementLine) else [line]
    if len(small) != 1 or not isinstance(small[0], cst.Assign) or len(small[0].targets) != 1:
        return None
    assign = small[0]
    target = assign.targets[0].target
    if not (isinstance(target, cst.Name) and target.value == name and list_of_name(assign.value, name)):
        return None
    return assign


def _is_pipeline_def(decorator: cst.Decorator, imports: ImportTable) -> bool:
    expr = decorator.decorator
    if isinstance(expr, cst.Call):
        expr = expr.func
    return imports.qualname(expr) == PIPELINE_DEF


def _is_static(decorator: cst.Decorator) -> bool:
    return isinstance(decorator.decorator, cst.Name) and decorator.decorator.value in ("staticmethod", "classmethod")
