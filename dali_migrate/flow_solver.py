"""The flow model's fixpoint (``dataflow.py``): the rounds that solve a module's values.

Round after round, each name's bindings, the arguments each call passes to the parameters of what it reaches (and
what other modules seed them with), each function's result (what it returns, or a generator of what it yields) and
each attribute's stores, until a round changes nothing; a unit of work none of whose reads changed since it was
last evaluated is skipped. ``FlowSolver`` is a mixin of ``DataFlow``; what a source binds it evaluates with
``FlowEvaluation``.
"""

from __future__ import annotations

import libcst as cst

from .flow_values import (DALI_ITERATOR, _depth, element, _is_tup, join, _MAX_DEPTH, _NO_ORIGINS, PIPELINE_FACTORY,
                          TOP, UNKNOWN, Value, value)
from .flow_bindings import Function
from .flow_evaluation import _taken_out
from .flow_star_args import spread_over


class FlowSolver:
    """The rounds that solve the module's values (a mixin of ``DataFlow``)."""

    # -- solving ------------------------------------------------------------------------------------
    def _solve(self) -> None:
        """Round after round, every unit of work in the module's order until a round changes nothing. A unit none of
        whose reads changed since it was last evaluated would give what it gave then: it is skipped, which changes
        nothing but the time (each evaluated unit sees what it would see if every unit ran every round)."""
        for _ in range(30):  # a handful of rounds in practice; the bound keeps odd code finite
            changed = self._solve_calls()
            for scope in self.scopes:
                graph = scope.graph_sources
                for name, sources in scope.bindings.items():
                    key = (id(scope), name)
                    if not self._stale(key):
                        continue
                    self._begin(key)
                    current, current_outside = self._values.get(key), self._outside.get(key)
                    new = current
                    outside = current_outside
                    for index, source in enumerate(sources):
                        found = self._source_value(source, scope, name)
                        new = join(new, found)
                        if len(sources) > 1:
                            binding = (id(scope), name, index)
                            held = self._binding_values.get(binding)
                            grown = _capped(join(held, found))
                            if grown != held:
                                self._binding_values[binding] = grown
                                self._changed(("b", binding))
                                changed = True
                        if (name, index) not in graph:
                            outside = join(outside, found)
                    new = _capped(new)
                    self._end(key)
                    if new != current:
                        self._values[key] = new
                        self._changed(("v", key))
                        changed = True
                    if graph and outside is not None:
                        outside = _capped(outside)
                        if outside != current_outside:
                            self._outside[key] = outside
                            self._changed(("o", key))
                            changed = True
            for key, sources in self._class_attrs.items():
                unit = ("attr", key)
                if self._stale(unit):
                    self._begin(unit)
                    new = self._joined_attr(key, sources)
                    self._end(unit)
                    changed |= self._set_attr(key, new)
            for index, (owner, attr, source) in enumerate(self._attr_stores):
                unit = ("store", index)
                if not self._stale(unit):
                    continue
                self._begin(unit)
                target = self._eval(owner)
                key = (target[0][1], attr) if target is not None and isinstance(target[0], tuple) \
                    and target[0][0] == "instance" else None
                new = self._joined_attr(key, [source]) if key is not None else None
                self._end(unit)
                if key is not None:
                    changed |= self._set_attr(key, new)
            for function in self.functions.values():
                unit = ("ret", function.node)
                if not self._stale(unit):
                    continue
                self._begin(unit)
                result = self._function_result(function)
                self._end(unit)
                if result != self._returns.get(function.node):
                    self._returns[function.node] = result
                    self._changed(("r", function.node))
                    changed = True
            if not changed:
                break
        self._evaluated, self._passed, self._stamps, self._readers, self._dirty = {}, {}, {}, {}, set()  # (bookkeeping)

    def _stale(self, unit) -> bool:
        """``unit`` was never evaluated, or something it read has changed since: a change stamped at or after the
        clock of its last evaluation, to an entry that evaluation read. Kept as it happens (``_end``, ``_changed``)
        rather than asked of every read of every unit in every round."""
        return unit in self._dirty or unit not in self._evaluated

    def _begin(self, unit) -> None:
        self._evaluated[unit] = (self._clock, ())
        self._reads = set()

    def _end(self, unit) -> None:
        when, reads = self._evaluated[unit][0], self._reads
        self._evaluated[unit] = (when, reads)
        self._reads = None
        stamps, readers = self._stamps, self._readers
        for tag in reads:
            readers.setdefault(tag, set()).add(unit)
        # (an entry it read may have changed while it was evaluated: a binding's own value, say)
        if any(stamps.get(tag, -1) >= when for tag in reads):
            self._dirty.add(unit)
        else:
            self._dirty.discard(unit)

    def _changed(self, tag) -> None:
        self._stamps[tag] = self._clock
        self._clock += 1
        evaluated = self._evaluated
        for unit in self._readers.get(tag, ()):
            if tag in evaluated[unit][1]:  # (not a read of an earlier evaluation only)
                self._dirty.add(unit)

    def _joined_attr(self, key, sources):
        """What an attribute holds with ``sources`` joined in (read only: the caller writes it, ``_set_attr``)."""
        new = self._attr_values.get(key)
        for source in sources:
            new = join(new, self._source_value(source, None, None))
        return _capped(new)

    def _set_attr(self, key, new) -> bool:
        if new == self._attr_values.get(key):
            return False
        self._attr_values[key] = new
        self._changed(("a", key))
        return True

    def _solve_calls(self) -> bool:
        """Parameters get what the call sites pass (one round)."""
        params: dict[tuple, Value | None] = {}
        targets: dict = {}
        for call, _scope in self.calls:
            unit = ("call", call)
            if self._stale(unit):
                self._begin(unit)
                passed: list = []
                reached = self._reached(call)
                if reached is None:
                    defined = self._pipeline_definition(call)
                    if defined is not None:  # `unary_pipe(root, op)`: the @pipeline_def's body gets what is passed
                        self._pass_arguments(call, defined, passed)
                elif not reached[0].escapes:
                    self._pass_arguments(call, reached[0], passed)
                self._end(unit)
                self._passed[call] = (reached, passed)
            reached, passed = self._passed[call]
            if reached is not None:
                targets[call] = reached
            for key, found in passed:
                params[key] = join(params.get(key), found)
        for function in self.functions.values():
            for name, kind, _default in function.params:
                key = (function.node, name)
                if function.escapes and kind in ("pos", "kw"):
                    params[key] = join(params.get(key), UNKNOWN)
        self._seed_parameters(params)
        self.call_targets = targets
        changed = params != self._params
        if changed:
            for key in params.keys() | self._params.keys():
                if params.get(key) != self._params.get(key):
                    self._changed(("p", key))
        self._params = params
        return changed

    def _pipeline_definition(self, call: cst.Call) -> Function | None:
        """The @pipeline_def function of this module a call builds a pipeline with (not a call target: the call
        gives a pipeline, not what the function returns), so its parameters hold what the call passes (an operator
        the graph calls, say)."""
        found = self._eval(call.func)
        if found is None or found[0] != PIPELINE_FACTORY or len(found[1]) != 1:
            return None
        origin = next(iter(found[1]))
        function = self._pipeline_functions.get(origin)
        if function is None:  # a Pipeline subclass of this module: its __init__ gets the arguments
            cls = next((node for node, info in self.classes.items() if info[0] == origin and info[3]), None)
            init = self._method_of(cls, "__init__") if cls is not None else None
            function = self.functions.get(init) if init is not None else None
        return function if function is not None and not function.escapes else None

    def builds_pipeline_here(self, call: cst.Call) -> bool:
        """``call`` makes a pipeline with a @pipeline_def or Pipeline subclass of this module, whose parameters the
        model fills with the call's arguments (``_pipeline_definition``)."""
        return self._pipeline_definition(call) is not None

    def _seed_parameters(self, params: dict) -> None:
        for name, target in self.seeded.items():
            node = self.seeded_function(target)
            function = self.functions.get(node) if node is not None else None
            if function is None:
                continue
            own = function.params[1:] if function.bound else function.params
            positional = [p[0] for p in own if p[1] == "pos"]
            for key, found in self.param_seeds.get(name, {}).items():
                param = positional[key] if isinstance(key, int) and key < len(positional) else key
                if isinstance(param, str) and any(p[0] == param for p in own):
                    params[(node, param)] = join(params.get((node, param)), found)
            for param, found in self.adapted.get(name, {}).items():
                params[(node, param)] = found  # whatever arrives, the function adapts it at run time

    def seeded_function(self, target):
        """The def whose parameters a top-level function or class (its ``__init__``) is called with."""
        return self._method_of(target, "__init__") if isinstance(target, cst.ClassDef) else target

    def _pass_arguments(self, call: cst.Call, function: Function, passed: list) -> None:
        """What ``call`` passes to ``function``'s parameters, in order: ``(key, value)`` appended to ``passed``."""
        own = function.params[1:] if function.bound else function.params
        positional = [p for p in own if p[1] == "pos"]
        by_name = {p[0]: p for p in own if p[1] in ("pos", "kw")}
        given: set[str] = set()
        index = 0
        starred = False
        unpacked = _NO_ORIGINS  # what `*args` / `**kwargs` carry: any parameter they fill may get it
        spread = spread_over(call.args, own)
        for arg in call.args:
            if arg.star and spread:  # `show(*pipe.run())`: one element for each positional parameter left
                found = self._eval(arg.value)
                named = {a.keyword.value for a in call.args if a.keyword is not None}
                rest = [p for p in positional[index:] if p[0] not in named]
                for offset, (name, _, default) in enumerate(rest):
                    if found is None:
                        got = None
                    elif _is_tup(found[0]) and len(found[0][1]) == len(rest):
                        got = _taken_out((found[0][1][offset], found[1]))
                    else:
                        got = (element(found[0]) if found[0] is not None else None, found[1])
                    if default is not None:  # the sequence may run out before it
                        got = join(got, self._eval(default))
                    passed.append(((function.node, name), got))
                    given.add(name)
                continue
            if arg.star:
                starred = True
                found = self._eval(arg.value)
                unpacked = unpacked | found[1] if found is not None else unpacked
                continue
            if arg.keyword is None:
                name = positional[index][0] if index < len(positional) else None
                index += 1
            else:
                name = arg.keyword.value if arg.keyword.value in by_name else None
            if name is not None:
                passed.append(((function.node, name), self._eval(arg.value)))
                given.add(name)
        for name, (_, _, default) in by_name.items():
            if name in given:
                continue
            key = (function.node, name)
            if starred:
                passed.append((key, (TOP, unpacked)))
            elif default is not None:
                passed.append((key, self._eval(default)))

    def _reached(self, call: cst.Call):
        """(Function, offset) a call runs: the module's own function, method or class constructor, or the method
        of a base class ``super().m(...)`` calls in a plain class (a user iterator's subclass)."""
        owner = self._super_calls.get(call)
        if owner is not None:
            bases = self.bases(owner)
            if not bases or any(self.classes[c][3] for c in (owner, *bases)):
                return None  # a pipeline class's super() is the Pipeline's, or its hierarchy's own (classes.py)
            method = self._method_of(bases[0], call.func.attr.value)
            function = self.functions.get(method) if method is not None else None
            return (function, 0) if function is not None and function.bound else None
        found = self._eval(call.func)
        if found is None:
            return None
        kind = found[0]
        if not isinstance(kind, tuple):
            return None
        if kind[0] == "function":
            function = self.functions.get(kind[1])
            return (function, 0) if function is not None else None
        if kind[0] == "method":
            function = self.functions.get(kind[1])
            return (function, 0) if function is not None else None
        if kind[0] == "class":
            init = self._method_of(kind[1], "__init__")
            return (self.functions[init], 0) if init is not None and init in self.functions else None
        if kind[0] == "instance":  # `augment(images)`: the class's __call__ runs (an augmentation class)
            method = self._method_of(kind[1], "__call__")
            function = self.functions.get(method) if method is not None else None
            return (function, 0) if function is not None and function.bound else None
        return None

    def _function_result(self, function: Function) -> Value | None:
        if function.yields:
            produced = None
            for how, expr in function.yields:
                if how == "expr":
                    produced = join(produced, self._eval(expr))
                elif how == "from":
                    inner = self._eval(expr)
                    produced = join(produced, None if inner is None else (element(inner[0]), inner[1]))
                else:
                    produced = join(produced, UNKNOWN)
            if produced is None:
                return None
            origins = produced[1]
            if function.pipeline:
                origins = origins | {function.pipeline}
            return (("gen", produced[0]) if produced[0] is not None else None, origins)
        result = None
        for expr in function.returns:
            result = join(result, self._eval(expr))
        if result is not None and function.pipeline:  # a migrated pipeline's function: its ReaderStream
            result = (result[0], result[1] | {function.pipeline})
        return result

    def _source_value(self, source, scope, name):
        tag = source[0]
        if tag == "value":
            return source[1]
        if tag == "def":  # a def of the module: its value carries the operators its body names (graph code)
            return value(("function", source[1]), self.function_sites.get(source[1], _NO_ORIGINS))
        if tag == "expr":
            return self._eval(source[1])
        if tag == "elem":
            parent, index, count = source[1], source[2], source[3]
            if parent[0] == "expr" and isinstance(parent[1], (cst.Tuple, cst.List)):
                elements = parent[1].elements
                if len(elements) == count and not any(isinstance(e, cst.StarredElement) for e in elements):
                    return self._eval(elements[index].value)
                return UNKNOWN
            whole = self._source_value(parent, scope, name)
            if whole is not None and _is_tup(whole[0]) and len(whole[0][1]) == count:
                return _taken_out((whole[0][1][index], whole[1]))
            return None if whole is None else (element(whole[0]) if whole[0] is not None else None, whole[1])
        if tag == "star":
            whole = self._source_value(source[1], scope, name)
            if whole is None:
                return None
            inner = element(whole[0])
            return (("seq", inner) if inner not in (None, TOP) else inner, whole[1])
        if tag == "iter":
            whole = self._eval(source[1])
            return None if whole is None else self._iterated(whole)
        if tag == "index_of":
            whole = self._eval(source[1])
            if whole is None:
                return None
            kind = whole[0]
            if isinstance(kind, tuple) and kind[0] == "keyed":
                return UNKNOWN
            return ((kind[1] if isinstance(kind, tuple) and kind[0] == "map" else TOP), whole[1])
        if tag == "key_of":  # `for key, v in d.items()`: a keyed dict's keys are followed, others' are not
            whole = self._eval(source[1])
            if whole is None:
                return None
            return (whole[0][1], whole[1]) if isinstance(whole[0], tuple) and whole[0][0] == "keyed" else UNKNOWN
        if tag == "arith":
            return self._arith([self._eval(source[1]), self._eval(source[2])], [source[1], source[2]])
        if tag == "append":
            item = self._eval(source[1])
            return None if item is None else (("seq", item[0]) if item[0] is not None else None, item[1])
        if tag == "store":
            item = self._source_value(source[1], scope, name)
            if item is None:
                return None
            mapping = scope is not None and (id(scope), name) in self._dict_names
            return (("map" if mapping else "seq", item[0]) if item[0] is not None else None, item[1])
        if tag == "param":
            key = (source[1].node, source[2])
            if self._reads is not None:
                self._reads.add(("p", key))
            return self._params.get(key, UNKNOWN if source[1].escapes else None)
        if tag == "self":
            return value(("instance", source[1]))
        if tag == "listify":
            found = self._source_value(source[1], scope, name)
            if found is None or found[0] is None or found[0] == TOP or isinstance(found[0], tuple) and \
                    found[0][0] in ("seq", "tup"):
                return found
            return (("seq", found[0]), found[1])
        return UNKNOWN

    def _iterated(self, found: Value) -> Value | None:
        """What iterating over a value gives (an instance's ``__iter__``/``__next__`` are followed)."""
        kind, origins = found
        if kind == DALI_ITERATOR:
            return UNKNOWN  # framework tensors, the same after migration
        if isinstance(kind, tuple) and kind[0] == "instance":
            method = self._method_of(kind[1], "__iter__")
            if method is None or method not in self.functions:
                return UNKNOWN
            result = self._returned(method)
            if result is None:
                return None
            if result[0] == ("instance", kind[1]):  # __iter__ returns self: __next__ gives the items
                nxt = self._method_of(kind[1], "__next__")
                found = self._returned(nxt) if nxt is not None else None
                return None if found is None else (found[0], found[1] | origins)
            if result[0] == DALI_ITERATOR:
                return UNKNOWN  # __iter__ returns a framework iterator: framework tensors, as above
            return (element(result[0]), result[1] | origins)
        return (element(kind), origins)


def _capped(found):
    if found is None or found[0] is None:
        return found
    if _depth(found[0]) > _MAX_DEPTH:
        return (TOP, found[1])
    return found
