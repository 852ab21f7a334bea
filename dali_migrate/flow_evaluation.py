"""What an expression evaluates to in the flow model (``dataflow.py``), from the values solved so far.

Names (``_lookup``: the bindings a read sees), attributes of the module's instances, calls (the module's own
functions, methods and classes; pipeline-mode operators, ops objects and ``Pipeline``; ndd calls; builtins such as
``next``, ``iter`` and ``list``; methods of pipelines, TensorLists, DataNodes, containers and readers), subscripts,
arithmetic, literals and comprehensions. ``FlowEvaluation`` is a mixin of ``DataFlow``: ``_eval`` gives None where
the solver has not decided yet.
"""

from __future__ import annotations

from contextlib import contextmanager

import libcst as cst

from . import optable
from .names import FN, MATH, NDD, OPS, TYPES
from .flow_values import (_BATCH_MAKERS, _COMMON_EXPRESSION, _common_expression, DALI_ITERATOR, DATA_KINDS, DATANODE,
                          DATANODES, element, _empty_dict, _fn_outputs, GENERATOR_FACTORY, _index, is_dali_kind,
                          is_literal, is_site, _is_tup, join, join_kind, keyword, literal_int, _NO_ORIGINS, _NOT_YET,
                          _num_outputs_kwarg, op_path, OPERATOR, _ops_outputs, OUTPUTS, PIPELINE, PIPELINE_CLASS,
                          PIPELINE_FACTORY, PLAIN, PLUGIN_PREFIX, _prints_alike, reader_path, RUN_METHODS,
                          _SAME_KIND_METHODS, _several_outputs, STREAM_CLASS, STREAM_FACTORY, _TENSOR_MAKERS,
                          TENSORCPU, TENSORLIST, TF_ITERATOR_OP, TF_OP, TF_OP_CLASS, TOP, TORCH_ITERATORS, tuple_of,
                          UNKNOWN, Value, value)
from .flow_bindings import Scope, list_of_name, listed_name


# Where a name's read finds its value (``DataFlow._lookup_plan``).
_VALUES, _BINDINGS, _OUTSIDE, _UNBOUND = "values", "bindings", "outside", "unbound"


class FlowEvaluation:
    """What an expression of the module evaluates to (a mixin of ``DataFlow``)."""

    # -- answers kept while the model is read -------------------------------------------------------
    @contextmanager
    def answers_kept(self):
        """While a walk reads the solved model and nothing it reads changes (the import table included: the passes
        add to it, so they do not read through this), each expression is evaluated once: a walk that asks a call's
        value, then its arguments', then their own arguments' no longer evaluates the innermost ones again each
        time. The same answers: ``_eval`` of a solved model depends on the expression and the model's tables only."""
        if "_eval" in self.__dict__:  # (already inside)
            yield
            return
        # By ``id`` (libcst's nodes hash in Python), with the node held beside its value: no node asked about and
        # freed during the walk (one a caller built to ask with) can leave its id to another.
        memo: dict[int, tuple] = {}
        evaluate = self._evaluate

        def kept(expr):
            held = memo.get(id(expr))
            if held is not None and held[0] is expr:
                return held[1]
            found = evaluate(expr)
            memo[id(expr)] = (expr, found)
            return found

        self._eval = kept
        try:
            yield
        finally:
            del self._eval

    # -- evaluation ---------------------------------------------------------------------------------
    def _evaluate(self, expr) -> Value | None:
        common = _COMMON_EXPRESSION.get(type(expr))
        if common is None:
            common = _COMMON_EXPRESSION[type(expr)] = _common_expression(expr)
        site = self.operator_sites.get(expr)
        if site is not None and common != 3:  # (3: a call)
            return value(OPERATOR, frozenset((site,)))
        if common == 1:
            return self._lookup(expr)
        if common == 2:
            return self._attribute(expr)
        if common == 3:
            return self._call(expr)
        if common == 4:
            return UNKNOWN  # a literal, an f-string, ...: none of the kinds below
        if isinstance(expr, cst.Subscript):
            return self._subscript(expr)
        if isinstance(expr, cst.BinaryOperation):
            return self._arith([self._eval(expr.left), self._eval(expr.right)], [expr.left, expr.right])
        if isinstance(expr, cst.UnaryOperation):
            if isinstance(expr.operator, cst.Not):
                return UNKNOWN
            return self._arith([self._eval(expr.expression)], [expr.expression])
        if isinstance(expr, cst.Comparison):
            comparisons = expr.comparisons
            if len(comparisons) == 1 and isinstance(comparisons[0].operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)):
                return UNKNOWN
            operands = [expr.left, *(c.comparator for c in comparisons)]
            return self._arith([self._eval(o) for o in operands], operands)
        if isinstance(expr, cst.IfExp):
            listified = _listify_expression(expr)
            if listified is not None:  # `x if isinstance(x, list) else [x]`: x's value as a list, as the statement
                found = self._eval(listified)
                if found is None or found[0] is None or found[0] == TOP or isinstance(found[0], tuple) and \
                        found[0][0] in ("seq", "tup"):
                    return found
                return (("seq", found[0]), found[1])
            return join(self._eval(expr.body), self._eval(expr.orelse))
        if isinstance(expr, cst.BooleanOperation):
            return join(self._eval(expr.left), self._eval(expr.right))
        if isinstance(expr, cst.NamedExpr):
            return self._eval(expr.value)
        if isinstance(expr, cst.Tuple):
            return self._tuple(expr.elements)
        if isinstance(expr, (cst.List, cst.Set)):
            if not expr.elements:
                return None  # an empty container says nothing yet: what is put into it decides
            if isinstance(expr, cst.List):
                known = self._tuple(expr.elements)  # `[pipe_fn, (0, 9)]`: elements that differ keep their places
                if known is not None and _is_tup(known[0]):
                    return known  # what a mutation puts into it joins with this to TOP (flow-insensitive)
            return self._sequence(expr.elements, lambda k: ("seq", k) if k not in (None, TOP) else k)
        if isinstance(expr, cst.Dict):
            if not expr.elements:
                return None
            found, keys, key_kind = None, _NO_ORIGINS, None
            for item in expr.elements:
                found = join(found, self._eval(item.value) if isinstance(item, cst.DictElement) else UNKNOWN)
                key = self._eval(item.key) if isinstance(item, cst.DictElement) else UNKNOWN
                keys |= key[1] if key is not None else _NO_ORIGINS
                key_kind = join_kind(key_kind, key[0] if key is not None else None)
            if key_kind not in (None, TOP) and keys and (found is None or not _interesting(found)):
                return (("keyed", key_kind), keys)  # `{PipeClass: [paths], ...}`: only the keys are DALI's
            if keys:  # pipelines (or their classes) as keys, beside DALI values: iterating it is not followed
                return (TOP, keys | (found[1] if found is not None else _NO_ORIGINS))
            return None if found is None else (("map", found[0]) if found[0] not in (None, TOP) else found[0], found[1])
        if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            found = self._eval(expr.elt)
            if found is None:
                return None
            kind = found[0]
            return ((("gen" if isinstance(expr, cst.GeneratorExp) else "seq"), kind) if kind not in (None, TOP)
                    else kind, found[1])
        if isinstance(expr, cst.DictComp):
            found = self._eval(expr.value)
            return None if found is None else (("map", found[0]) if found[0] not in (None, TOP) else found[0],
                                               found[1])
        if isinstance(expr, cst.Lambda):
            return value(("function", expr), self.function_sites.get(expr, _NO_ORIGINS))
        return UNKNOWN

    _eval = _evaluate  # (``answers_kept`` puts a memo in front of it, for one instance)

    def _tuple(self, elements):
        """A tuple literal: "tuple:K" when its elements agree, ("tup", kinds) when they differ."""
        if any(isinstance(item, cst.StarredElement) for item in elements):
            return self._sequence(elements, tuple_of)
        # (an empty dict literal is nothing until something is stored into it; in a tuple nothing can be: plain)
        found = [UNKNOWN if _empty_dict_literal(item.value) else self._eval(item.value) for item in elements]
        if any(f is None for f in found):
            return None
        origins = _NO_ORIGINS
        for f in found:
            origins = origins | f[1] if f[1] else origins
        kinds = [f[0] for f in found]
        if all(_prints_alike(kinds[0], kind) for kind in kinds[1:]):
            return (tuple_of(kinds[0]) if kinds else TOP, origins)
        return (_tup(found), origins)

    def _sequence(self, elements, make):
        found = None
        for item in elements:
            if isinstance(item, cst.StarredElement):
                inner = self._eval(item.value)
                found = join(found, None if inner is None else (element(inner[0]), inner[1]))
            else:
                found = join(found, self._eval(item.value))
        if found is None:
            return None
        return (make(found[0]) if found[0] is not None else None, found[1])

    def _lookup(self, name: cst.Name):
        if name.value == "None":
            return None  # says nothing: `x = None` then `x = pipe.run()` is an output (or None)
        plan = self._lookup_plans.get(name)
        if plan is None:
            scope = self.name_scope.get(name)
            if scope is None:
                return UNKNOWN  # a name the walk did not see
            plan = self._lookup_plans[name] = self._lookup_plan(name, scope)
        where, key = plan
        reads = self._reads
        if where is _VALUES:
            if reads is not None:
                reads.add(("v", key))
            return self._values.get(key)
        if where is _BINDINGS:
            found = None
            for binding in key:
                if reads is not None:
                    reads.add(("b", binding))
                found = join(found, self._binding_values.get(binding))
            return found
        if where is _OUTSIDE:
            if reads is not None:
                reads.add(("o", key))
            return self._outside.get(key)  # None until solved: an early answer would stick
        return UNKNOWN

    def _lookup_plan(self, name: cst.Name, scope) -> tuple:
        """Where a read of ``name`` finds its value: which scope, and which of its bindings. That depends on the
        module's text alone, so it is worked out once per read, not in every round of the solver."""
        owner = scope.lookup_scope(name.value)
        if owner is None:
            return (_UNBOUND, None)  # a builtin or an undefined name
        key = (id(owner), name.value)
        if owner.graph_sources and name not in self.graph_names and self._bound_outside(owner, name.value):
            return (_OUTSIDE, key)
        if len(owner.bindings[name.value]) > 1 and not owner.graph_sources:
            seen = self._reaching.bindings(name, owner, scope)
            if seen is not None:
                return (_BINDINGS, tuple((id(owner), name.value, index) for index in seen))
        return (_VALUES, key)

    @staticmethod
    def _bound_outside(scope: Scope, name: str) -> bool:
        """``name`` has a binding outside every pipeline definition, and one inside one."""
        graph = scope.graph_sources
        count = len(scope.bindings.get(name, ()))
        inside = sum(1 for index in range(count) if (name, index) in graph)
        return 0 < inside < count

    def _attribute(self, node: cst.Attribute):
        if self.imports.qualname(node) is not None:
            return UNKNOWN  # a module attribute (types.FLOAT, np.float32, ...)
        owner = self._eval(node.value)
        if owner is None:
            return None
        kind = owner[0]
        attr = node.attr.value
        if isinstance(kind, tuple) and kind[0] == "instance":
            return self._instance_attribute(kind[1], attr)
        return UNKNOWN

    def _instance_attribute(self, class_node, attr: str):
        found = self._attr_value((class_node, attr))
        if found is not None:
            return found
        method = self._method_of(class_node, attr)
        if method is not None:
            return value(("method", method, class_node))
        for base in self.bases(class_node):
            found = self._attr_value((base, attr))
            if found is not None:
                return found
        if attr in self._stored_attrs:
            return None  # stored somewhere: no information yet (an early UNKNOWN would stick)
        return UNKNOWN

    def _attr_value(self, key):
        if self._reads is not None:
            self._reads.add(("a", key))
        return self._attr_values.get(key)

    def _returned(self, node):
        """What the function ``node`` returns (None until solved)."""
        if self._reads is not None:
            self._reads.add(("r", node))
        return self._returns.get(node)

    def bases(self, class_node) -> list:
        """The module's own classes among a class's bases, nearest first."""
        out = []
        info = self.classes.get(class_node)
        while info is not None:
            parent = None
            for base in info[1]:
                if isinstance(base, cst.Name):
                    found = self._lookup(base)
                    if found is not None and isinstance(found[0], tuple) and found[0][0] == "class":
                        parent = found[0][1]
                        break
            if parent is None or parent in out:
                break
            out.append(parent)
            info = self.classes.get(parent)
        return out

    def method_of(self, class_node, name: str):
        """The def of ``name`` in the class or the module's classes it derives from (None: not defined here)."""
        return self._method_of(class_node, name)

    def _method_of(self, class_node, name: str):
        for node in (class_node, *self.bases(class_node)):
            info = self.classes.get(node)
            if info is not None and name in info[2]:
                return info[2][name]
        return None

    def _call(self, call: cst.Call):
        func = call.func
        if isinstance(func, cst.Name) and func.value == STREAM_CLASS and call.args:
            # A migrated pipeline that answers its readers' metadata (unroll/stream.py): its steps.
            steps = self._eval(call.args[0].value)
            if steps is None or not (isinstance(steps[0], tuple) and steps[0][0] == "gen"):
                return steps
            return (("stream", steps[0][1]), steps[1])
        qualname = self.imports.qualname(func)
        if isinstance(func, cst.Name) and func.value == TF_OP_CLASS and not call.args and not (
                qualname or "").startswith("nvidia."):
            return value(TF_OP)  # an earlier run's TFIterator(): it takes pipelines of either mode
        if qualname is not None and (qualname.startswith("nvidia.") or not isinstance(func, cst.Name)
                                     or func.value not in self.extra_imported):
            return self._library_call(call, qualname)
        if _empty_dict(call) and self._unbound(func):
            return None  # as `{}`: what is stored into it decides
        if isinstance(func, cst.Name) and func.value in _BUILTIN_CALLS and self._unbound(func):
            return self._builtin_call(call, func.value)
        callee = self._eval(func)
        if callee is None:
            return None
        kind, origins = callee
        if kind == OPERATOR or kind == TOP and origins and all(is_site(o) for o in origins):
            # an operator given as a value (a parameter, a table's entry) called: a graph value of whatever
            # pipeline calls it, which meets the operator's sites (TOP: maybe one, beside plain callables)
            if kind == TOP and call not in self.graph_origin:
                return UNKNOWN  # outside a graph, a table's plain callable (np.sqrt beside math.sqrt) as well
            return (DATANODE, origins | self._graph_origins(call) | self._argument_origins(call))
        if kind == PIPELINE_FACTORY:
            return value(PIPELINE, origins)
        if kind == "reader":  # calling a reader reads one sample: a Tensor (a tuple of them for several outputs)
            return (TOP, origins) if keyword(call, "batch_size") is not None else value("tensor", origins)
        if kind == GENERATOR_FACTORY:
            return value(("gen", TOP), origins)
        if kind == STREAM_FACTORY:
            return value(("stream", TOP), origins)
        if isinstance(kind, tuple):
            head = kind[0]
            if head == "ops":  # (the object's own origins: the site it was made at, which the graph meets)
                return (_ops_outputs(kind[1]), origins | self._graph_origins(call) | self._argument_origins(call))
            if head in ("function", "method"):
                function = self.functions.get(kind[1])
                if function is None:
                    return UNKNOWN
                result = self._returned(function.node)
                carried = frozenset(o for o in origins if not is_site(o))  # (the operators it names are its
                if result is not None and carried:  # value's, not its result's: those come with what it returns)
                    result = (result[0], result[1] | carried)
                return result
            if head == "class":
                return value(("instance", kind[1]), origins)
            if head == "instance":  # its __call__ (``_reached``), as a method call gives
                reached = self._reached(call)
                if reached is not None:
                    return self._returned(reached[0].node)
        if isinstance(func, cst.Attribute):
            return self._method_call(call, callee, kind)
        return UNKNOWN

    def _method_call(self, call: cst.Call, callee, callee_kind):
        func = call.func
        owner = self._eval(func.value)
        if owner is None:
            return None
        kind, origins = owner
        method = func.attr.value
        if kind == PIPELINE:
            if method in RUN_METHODS:
                return value(OUTPUTS, origins)
            return UNKNOWN
        if kind == TENSORLIST:
            if method == "as_cpu":
                return value(TENSORLIST, origins)
            if method == "as_tensor":
                return value(TENSORCPU, origins)  # then ndd.as_tensor(batch), a Tensor, once rewritten
            return UNKNOWN
        if kind == DATANODE:
            if method in ("gpu", "cpu"):
                return value(DATANODE, origins)
            return UNKNOWN
        if isinstance(kind, tuple) and kind[0] == "keyed":
            if method == "keys":
                return (("seq", kind[1]), origins)
            if method == "copy":
                return owner
            return UNKNOWN  # values(), get(), pop(): the plain values
        if isinstance(kind, tuple) and kind[0] in ("seq", "map"):
            if method in ("pop", "get"):
                return (kind[1], origins)
            if method == "values":
                return (("seq", kind[1]), origins)
            if method == "copy":
                return owner
            return UNKNOWN
        # dynamic mode
        if kind == "reader" and method == "next_epoch":
            has_batch_size = any(a.keyword is None for a in call.args) or keyword(call, "batch_size") is not None
            return value("epoch:batch" if has_batch_size else "epoch:data", origins)
        if kind in DATA_KINDS and method in _SAME_KIND_METHODS:
            return owner
        if kind in ("batch", "data") and method == "select" and call.args:
            arg = call.args[0].value
            if literal_int(arg):
                return value("tensor", origins)
            if isinstance(arg, (cst.List, cst.Tuple)) or (
                    isinstance(arg, cst.Call) and isinstance(arg.func, cst.Name) and arg.func.value == "slice"):
                return value("batch", origins)
            return value("data", origins)
        if kind == "external_source" and method == "__call__":
            return value("data", origins)
        return UNKNOWN

    def _library_call(self, call: cst.Call, qualname: str):
        if qualname == PIPELINE_CLASS:
            key = self.pipeline_calls.get(call)
            return value(PIPELINE, frozenset((key,)) if key else _NO_ORIGINS)
        if qualname.startswith(FN + "."):
            kind = _num_outputs_kwarg(call, qualname) or _fn_outputs(qualname)
            if kind == TOP and not _several_outputs(qualname, call):
                kind = DATANODE  # an op whose extra outputs come only with an argument not given here
            listed = self.list_input(call)
            if listed is _NOT_YET:
                return None
            if listed is not None and self.list_length(listed.value) != 1:
                # pipeline mode applies the op to each DataNode of a list input; a list of one gives what one
                # call gives (ops/__init__.py: one input set is unwrapped)
                kind = ("seq", kind)
            return (kind, self._graph_origins(call) | self._argument_origins(call))
        if qualname.startswith(MATH + ".") or qualname == f"{TYPES}.Constant":
            return (DATANODE, self._graph_origins(call) | self._argument_origins(call))
        if qualname.startswith(OPS + "."):
            return value(("ops", qualname[len(OPS) + 1:]), self._graph_origins(call))
        if qualname.startswith(NDD + "."):
            return self._ndd_call(qualname[len(NDD) + 1:], call)
        if qualname == TF_ITERATOR_OP:
            return value(TF_OP)
        if qualname in TORCH_ITERATORS or qualname.startswith(PLUGIN_PREFIX) and qualname.endswith("Iterator"):
            return value(DALI_ITERATOR, self._argument_origins(call))
        if not qualname.startswith("nvidia."):
            # code the model does not see (a registry's register(name, op)) may give back an operator it is handed:
            # what it returns meets the operators' sites (a pipeline that calls it keeps them in one unit)
            sites = frozenset(o for o in self._argument_origins(call) if is_site(o))
            if sites:
                return (TOP, sites)
        return UNKNOWN

    def list_length(self, expr, depth: int = 0) -> int | None:
        """How many DataNodes a list given to an fn op holds, where the text shows it: a list literal, an
        ``fn.external_source(..., num_outputs=k)`` (a list even for k == 1), an op of k outputs, or a name bound
        once to one of them; else None."""
        if isinstance(expr, cst.List) and not any(isinstance(e, cst.StarredElement) for e in expr.elements):
            return len(expr.elements)
        if isinstance(expr, cst.Name) and depth < 8:
            bound = self.single_value(expr)
            return self.list_length(bound, depth + 1) if bound is not None else None
        if isinstance(expr, cst.Call):
            qualname = self.imports.qualname(expr.func) or ""
            arg = keyword(expr, "num_outputs")
            if qualname == f"{FN}.external_source" and arg is not None and isinstance(arg.value, cst.Integer):
                return int(arg.value.evaluated_value)
            if qualname.startswith(FN + ".") and arg is None and _fn_outputs(qualname) == DATANODES:
                _, _, entry = optable.resolve_fn(qualname[len(FN) + 1:])
                return entry.get("outputs") if entry else None
        return None

    def list_input(self, call: cst.Call):
        """The positional argument of an fn op call that is a list (or tuple) of DataNodes, when it is the
        only one: pipeline mode then applies the op to each of them and returns a list."""
        found = None
        for arg in call.args:
            if arg.keyword is not None or arg.star:
                continue
            value_ = self._eval(arg.value)
            if value_ is None and not (isinstance(arg.value, cst.Name) and arg.value.value == "None"):
                return _NOT_YET  # not known yet in this round of the fixpoint: decide nothing
            kind = value_[0] if value_ is not None else None
            listed = isinstance(kind, tuple) and kind[0] == "seq" and kind[1] in (DATANODE, DATANODES) or \
                kind in ("tuple:" + DATANODE, DATANODES)
            if listed:
                if found is not None:
                    return None
                found = arg
        return found

    def _ndd_call(self, path: str, call: cst.Call):
        origins = self._argument_origins(call) | self._graph_origins(call)
        if path in _BATCH_MAKERS:
            return value("batch", origins)
        if path in _TENSOR_MAKERS:
            return value("tensor", origins)
        if path == "random.RNG":
            return value("rng")
        if path == "checkpoint.Checkpoint":
            return value("ckpt")
        if path == "ExternalSource":
            return value("external_source", origins)
        if reader_path(path):
            return value("reader", origins)
        op = op_path(path)
        if op is None:
            return UNKNOWN
        inputs = [a.value for a in call.args if a.keyword is None or a.keyword.value not in (
            "device", "dtype", "rng", "batch_size", "layout")]
        found = [self._eval(e) for e in inputs]
        kinds = [f[0] if f is not None else None for f in found]
        if "batch" in kinds or keyword(call, "batch_size") is not None:
            result = "batch"
        elif None in kinds:
            return None
        elif all(k == "tensor" or is_literal(e) for k, e in zip(kinds, inputs)):
            result = "tensor"
        else:
            result = "data"
        from . import derive  # the op's schema (several outputs?)

        if derive.may_have_several_outputs(op, {a.keyword.value for a in call.args if a.keyword}):
            return value(f"tuple:{result}", origins)
        return value(result, origins)

    def _builtin_call(self, call: cst.Call, name: str):
        args = [a for a in call.args if a.keyword is None and not a.star]
        if not args:
            return UNKNOWN
        found = self._eval(args[0].value)
        if found is None:
            return None
        kind, origins = found
        if name == "next":
            if kind == DALI_ITERATOR:
                return UNKNOWN
            if isinstance(kind, tuple) and kind[0] == "instance":
                method = self._method_of(kind[1], "__next__")
                if method is None or method not in self.functions:
                    return UNKNOWN
                return self._returned(method)  # None until solved
            if isinstance(kind, tuple) and kind[0] in ("gen", "stream", "seq") or (isinstance(kind, str) and kind.startswith(
                    "epoch:")):
                return (element(kind), origins)
            return UNKNOWN
        if name == "iter" and isinstance(kind, tuple) and kind[0] == "instance":
            # iter(obj) is what obj.__iter__ returns: obj itself when it returns self (a user iterator class,
            # whose other methods, .next say, stay callable), not a generator (of a migrated pipeline's steps)
            method = self._method_of(kind[1], "__iter__")
            if method is not None and method in self.functions:
                result = self._returned(method)
                if result is None:
                    return None
                if isinstance(result[0], tuple) and result[0][0] == "instance" and \
                        result[0][1] in (kind[1], *self.bases(kind[1])):
                    return found
                return (result[0], result[1] | origins)
        inner = self._iterated(found)
        if inner is None:
            return None
        if inner[0] in (None, TOP):
            return (TOP, inner[1])
        if name == "iter":
            return (("gen", inner[0]), inner[1])
        return (tuple_of(inner[0]) if name == "tuple" else ("seq", inner[0]), inner[1])

    def _unbound(self, name: cst.Name) -> bool:
        scope = self.name_scope.get(name)
        return scope is not None and scope.lookup_scope(name.value) is None and \
            name.value not in self.module_scope.bindings

    def _argument_origins(self, call: cst.Call) -> frozenset:
        origins = _NO_ORIGINS
        for arg in call.args:
            found = self._eval(arg.value)
            if found is not None and found[1]:
                origins = origins | found[1]
        return origins

    def _graph_origins(self, call: cst.Call) -> frozenset:
        """The pipeline whose definition holds the call, or the call's own operator site outside every one."""
        origin = self.graph_origin.get(call) or self.operator_sites.get(call)
        return frozenset((origin,)) if origin else _NO_ORIGINS

    def _subscript(self, node: cst.Subscript):
        value_node = node.value
        if isinstance(value_node, cst.Attribute) and value_node.attr.value == "slice":
            inner = self._eval(value_node.value)
            if inner is None or inner[0] == "batch":
                return inner
            return UNKNOWN
        owner = self._eval(value_node)
        if owner is None:
            return None
        kind, origins = owner
        if kind == DATANODE:
            return owner
        if len(node.slice) != 1:
            return UNKNOWN
        is_slice = isinstance(node.slice[0].slice, cst.Slice)
        index = node.slice[0].slice
        position = None
        if not is_slice and literal_int(index.value):
            position = int(index.value.value) if isinstance(index.value, cst.Integer) else \
                -int(index.value.expression.value)
        result = _index(kind, is_slice, position)
        return _taken_out((result, origins)) if result is not None else None

    def _arith(self, found, operands=None):
        kinds = [f[0] if f is not None else None for f in found]
        origins = _NO_ORIGINS
        for f in found:
            if f is not None and f[1]:
                origins = origins | f[1]
        if DATANODE in kinds:
            return value(DATANODE, origins)
        if "batch" in kinds:
            return value("batch", origins)
        if None in kinds:
            return None
        data = [k for k in kinds if k in DATA_KINDS]
        if data and operands is not None and all(k in DATA_KINDS or is_literal(o) for k, o in zip(kinds, operands)):
            return value("tensor" if all(k == "tensor" for k in data) else "data", origins)
        return (TOP, origins)


def _listify_expression(node: cst.IfExp) -> cst.Name | None:
    """``x if isinstance(x, list) else [x]`` or ``[x] if not isinstance(x, list) else x`` (``list``, ``tuple`` or
    both; ``(x,)`` too): x."""
    test, kept, made = node.test, node.body, node.orelse
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test, kept, made = test.expression, node.orelse, node.body
    name = listed_name(test)
    if name is None or not (isinstance(kept, cst.Name) and kept.value == name and list_of_name(made, name)):
        return None
    return kept


_BUILTIN_CALLS = {"next", "iter", "list", "tuple", "sorted", "reversed"}


def _empty_dict_literal(expr) -> bool:
    return isinstance(expr, cst.Dict) and not expr.elements


def _tup(found) -> tuple:
    """("tup", kinds) of elements whose values differ in kind; an element known to carry nothing of DALI
    (TOP without origins) beside one that is known is PLAIN (the tuple's origins are not its own)."""
    return ("tup", tuple(PLAIN if f[0] == TOP and not f[1] else f[0] for f in found))


def _taken_out(found):
    """A value taken out of a tuple: a PLAIN element is a plain value, without the tuple's origins."""
    if found is not None and found[0] == PLAIN:
        return UNKNOWN
    return found


def _interesting(found) -> bool:
    return found is not None and (is_dali_kind(found[0]) or bool(found[1]))
