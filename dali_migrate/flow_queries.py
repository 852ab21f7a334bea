"""What the passes, the post-check and the lint ask the solved flow model (``dataflow.py``).

An expression's value, kind and origins (``value_of``, ``kind_of``, ``origins_of``); a name's bindings
(``single_value``, ``binding_scope``, ``reaching_bindings``, ``holds_one_value``, ``is_builtin``); which pipelines
the module asks metadata of or starts again (``metadata_asked``, ``epochs_asked``), and the iterators and wrappers
over them (``torch_iterator_call``, ``wrapper_inputs``, ``forwarding_call``); what code outside a Pipeline subclass
reads of it (``own_method``, ``own_plain_attribute``, ``outside_attributes``). ``FlowQueries`` is a mixin of
``DataFlow``.
"""

from __future__ import annotations

import libcst as cst

from .names import FN, OPS, TYPES
from .flow_values import (_code_text, is_adapted, is_literal, is_site, keyword, METADATA_ATTRIBUTES, METADATA_METHODS,
                          _NO_ORIGINS, ops_object_path, PIPELINE, PIPELINE_FACTORY, TOP, TORCH_ITERATORS, Value)
from .flow_bindings import Function, Scope
from .flow_evaluation import _interesting, _taken_out
from .flow_star_args import forwarded_stars, star_landing
from .walk import walk


class _NvidiaNames(cst.CSTVisitor):
    """Whether an expression names anything of nvidia.* (``DataFlow._names_dali``); module-level, so no class made
    per call keeps a module's tree alive (tests/test_scale.py)."""

    def __init__(self, imports):
        self.imports, self.found = imports, False

    def visit_Name(self, node):
        self.found |= (self.imports.qualname(node) or "").startswith("nvidia.")

    def visit_Attribute(self, node):
        if (self.imports.qualname(node) or "").startswith("nvidia."):
            self.found = True
            return False
        return True


class FlowQueries:
    """What the passes ask of the solved model (a mixin of ``DataFlow``)."""

    # -- queries --------------------------------------------------------------------------------
    def value_of(self, expr) -> Value:
        found = self._eval(expr)
        if found is None or found[0] is None:
            return (TOP, found[1] if found else _NO_ORIGINS)
        return _taken_out(found)

    def kind_of(self, expr):
        return self.value_of(expr)[0]

    def holds_one_value(self, name: cst.Name) -> bool:
        """Every read of ``name`` gives the value the read at this place gives: the name is bound once in its scope (a
        module or function), outside any loop there, and from no other scope (``global``, ``nonlocal``), or it is a
        parameter never bound again. A lambda that reads it computes with the value it had where the lambda was made,
        as an ops object kept the values of its constructor's arguments."""
        scope = self.name_scope.get(name)
        owner = scope.lookup_scope(name.value) if scope is not None else None
        if owner is None or owner.kind not in ("module", "function") or len(owner.bindings.get(name.value, ())) != 1 \
                or (id(owner), name.value) in self._unordered_bindings:
            return False
        chain = self._binding_chain.get((id(owner), name.value, 0))
        return chain is not None and not any(isinstance(s, (cst.For, cst.While)) for s in chain)

    def imported_makers(self, expr) -> set[str]:
        """The qualnames of the imported callables whose call made the object ``expr`` reads (``augment`` of
        ``augment = Augment(0.5)``, ``self.aug`` of ``self.aug = transforms.Mirror()`` in a method): calling that
        object runs code of their module (its ``__call__``), with whatever it is given."""
        sources = []
        if isinstance(expr, cst.Name):
            scope = self.name_scope.get(expr)
            owner = scope.lookup_scope(expr.value) if scope is not None else None
            sources = owner.bindings.get(expr.value, []) if owner is not None else []
        elif isinstance(expr, cst.Attribute):
            owner = self._eval(expr.value)
            if owner is not None and isinstance(owner[0], tuple) and owner[0][0] == "instance":
                for class_node in (owner[0][1], *self.bases(owner[0][1])):
                    sources = sources or self._class_attrs.get((class_node, expr.attr.value), [])
        found = set()
        for source in sources:
            if source[0] == "expr" and isinstance(source[1], cst.Call):
                qualname = self.imports.qualname(source[1].func)
                if qualname is not None and not qualname.startswith("nvidia."):
                    found.add(qualname)
        return found

    def ops_objects_in(self, expr) -> list[cst.Call]:
        """The ``ops.X(...)`` calls, made outside the pipelines' definitions, that made the ops objects ``expr`` can
        hold (``self.flip``, ``coins[i]``, what a factory returns): their operator sites among its origins."""
        origins = self.value_of(expr)[1]
        if not any(is_site(o) for o in origins):
            return []
        if self._site_nodes is None:
            self._site_nodes = {o: n for n, o in self.operator_sites.items()}
        found = [self._site_nodes.get(o) for o in origins if is_site(o)]
        return [n for n in found if isinstance(n, cst.Call) and ops_object_path(self.imports.qualname(n.func))]


    def origins_of(self, expr) -> frozenset:
        return self.value_of(expr)[1]

    def is_dali(self, expr, *kinds) -> bool:
        return self.kind_of(expr) in kinds

    def name_value(self, name: str, scope: Scope) -> Value | None:
        owner = scope.lookup_scope(name)
        if owner is None:
            return None
        if self._reads is not None:
            self._reads.add(("v", (id(owner), name)))
        return self._values.get((id(owner), name))

    def dali_names(self) -> set[str]:
        """Every name and attribute name that holds a DALI kind (or a value with origins) somewhere."""
        names = {name for (_, name), found in self._values.items() if _interesting(found)}
        names.update(attr for (_, attr), found in self._attr_values.items() if _interesting(found))
        return names

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

    def binding_scope(self, name: cst.Name) -> Scope | None:
        """The scope whose binding ``name`` reads (None: a builtin, undefined, or not seen)."""
        scope = self.name_scope.get(name)
        return scope.lookup_scope(name.value) if scope is not None else None

    def reads_a_parameter(self, name: cst.Name) -> bool:
        """``name`` reads a parameter of the function around it (every binding it can see there is the parameter):
        a function's ``ops`` or ``fn`` argument, not the module of that name its file imports."""
        owner = self.binding_scope(name)
        sources = owner.bindings.get(name.value, []) if owner is not None and owner is not self.module_scope else []
        return bool(sources) and all(source[0] == "param" for source in sources)

    def reaching_bindings(self, name: cst.Name) -> frozenset | None:
        """The indices of the bindings (of ``binding_scope(name)``) that can reach this read, or None: any."""
        scope = self.name_scope.get(name)
        owner = scope.lookup_scope(name.value) if scope is not None else None
        if owner is None:
            return None
        return self._reaching.bindings(name, owner, scope)

    def single_value(self, name: cst.Name):
        """The value expression of the only binding of ``name`` (a plain ``name = value``), or None."""
        owner = self.binding_scope(name)
        if owner is None:
            return None
        sources = owner.bindings.get(name.value, [])
        if len(sources) == 1 and sources[0][0] == "expr" and sources[0][1] is not None:
            return sources[0][1]
        return None

    def bound_to_literals(self, name: cst.Name) -> bool:
        """Every binding of ``name`` is a plain assignment of a literal."""
        owner = self.binding_scope(name)
        if owner is None:
            return False
        sources = owner.bindings.get(name.value, [])
        return bool(sources) and all(s[0] == "expr" and s[1] is not None and is_literal(s[1]) for s in sources)

    def metadata_asked(self) -> frozenset:
        """The pipelines whose readers' metadata the module asks for: ``x.epoch_size(...)``,
        ``x.reader_meta(...)``, ``x.max_batch_size`` or ``x.batch_size`` on a pipeline value, or a PyTorch
        iterator with ``reader_name=`` over one (the migration answers them at run time: unroll/stream.py)."""
        if self._metadata_asked is None:
            found: set = set()
            for call, _scope in self.calls:
                func = call.func
                if isinstance(func, cst.Attribute) and func.attr.value in METADATA_METHODS:
                    found |= self.pipelines_in(func.value)
                for arg in self.wrapper_inputs(call):  # the wrapper's iterator may ask for its reader or batch size
                    found |= self.pipelines_in(arg.value)
                if self.torch_iterator_call(call) and call.args and keyword(call, "reader_name") is not None:
                    found |= self.pipelines_in(call.args[0].value)
                elif self.torch_iterator_call(call) and self.imports.qualname(call.func) not in TORCH_ITERATORS \
                        or self.iterator_super_init(call):
                    for arg in call.args:  # a subclass's own __init__ may name the reader to its base
                        found |= self.pipelines_in(arg.value)
            for attribute in self.attributes:
                if attribute.attr.value in METADATA_ATTRIBUTES and attribute not in self._callees:
                    found |= self.pipelines_in(attribute.value)
            self._metadata_asked = frozenset(found)
        return self._metadata_asked

    def epochs_asked(self) -> frozenset:
        """The pipelines whose epochs the module starts again: ``x.reset()`` on a pipeline value, or a PyTorch
        iterator over one (its reset(), auto_reset or a new loop resets the pipelines). A migrated pipeline
        whose external source ends an epoch is then a ReaderStream that restarts its steps (unroll/stream.py)."""
        found: set = set()
        for call, _scope in self.calls:
            func = call.func
            if isinstance(func, cst.Attribute) and func.attr.value == "reset" and not call.args:
                found |= self.pipelines_in(func.value)
            if self.torch_iterator_call(call) and call.args:
                found |= self.pipelines_in(call.args[0].value)
            elif self.iterator_super_init(call):  # the pipelines a subclass builds itself and hands to its base
                for arg in call.args:
                    found |= self.pipelines_in(arg.value)
            for arg in self.wrapper_inputs(call):
                found |= self.pipelines_in(arg.value)
        return frozenset(found)

    def torch_iterator_call(self, call: cst.Call) -> bool:
        """``call`` makes a PyTorch iterator: the plugin's, or a class of the module derived from one."""
        if self.imports.qualname(call.func) in TORCH_ITERATORS:
            return True
        kind = self.value_of(call.func)[0] if isinstance(call.func, cst.Name) else None
        info = self.classes.get(kind[1]) if isinstance(kind, tuple) and kind[0] == "class" else None
        return info is not None and any(self.imports.qualname(base) in TORCH_ITERATORS for base in info[1])

    def iterator_super_init(self, call: cst.Call) -> bool:
        """``call`` is ``super().__init__(...)`` (or ``super(Cls, self)``) in a method of a class of the module derived
        from a PyTorch iterator: it constructs the plugin's iterator over the pipelines it is given."""
        owner = self._super_calls.get(call)
        info = self.classes.get(owner) if owner is not None and call.func.attr.value == "__init__" else None
        return info is not None and any(self.imports.qualname(base) in TORCH_ITERATORS for base in info[1])

    def wrapper_inputs(self, call: cst.Call) -> list[cst.Arg]:
        """The arguments of ``call`` that an iterator wrapper hands to a run-time-deciding PyTorch iterator: another
        module's (``iterator_wrappers``), or a def of this module that passes its ``*args``/``**kwargs`` on to
        DALIGenericIterator (``forwarded_stars``); empty for any other call."""
        keys = self.iterator_wrappers.get(self.imports.qualname(call.func)) if self.iterator_wrappers else None
        if not keys:
            return self.star_inputs(call)
        positional = [a for a in call.args if a.keyword is None]
        if any(a.star for a in call.args):
            return []
        found = [a for a in call.args if "*" in keys or (a.keyword.value if a.keyword is not None
                                                          else positional.index(a)) in keys]
        for key in keys:  # ("*", n): positions from n on; ("**", named): keywords not named (run_time_inputs)
            if isinstance(key, tuple):
                star = key[0] == "*"
                landing = star_landing(call.args, key[1] if star else len(positional), () if star else key[1],
                                       star, not star)
                found += [a for a in landing if not any(a is f for f in found)]
        return found

    def star_inputs(self, call: cst.Call) -> list[cst.Arg]:
        """The arguments of ``call`` that land in the ``*args``/``**kwargs`` of a def of this module which hands them
        on to DALIGenericIterator (``forwarded_stars``): that iterator decides at run time which kind of pipelines
        it got (DM241)."""
        return self.star_arguments(call, forwarded_only=True)

    def star_arguments(self, call: cst.Call, forwarded_only=False) -> list[cst.Arg]:
        """The arguments of ``call`` (to a def of this module) that land in its ``*args``/``**kwargs`` (the model
        follows them no further); with ``forwarded_only``, those it hands on to DALIGenericIterator."""
        reached = self.call_targets.get(call)
        if reached is None:
            return []
        function = reached[0]
        own = function.params[1:] if function.bound else function.params
        star, starstar = any(p[1] == "star" for p in own), any(p[1] == "starstar" for p in own)
        if forwarded_only:
            forwarded = self._forwarded(function.node)
            if forwarded is None:
                return []
            star, starstar = forwarded[0], forwarded[1]
        return star_landing(call.args, sum(1 for p in own if p[1] == "pos"),
                            {p[0] for p in own if p[1] in ("pos", "kw")}, star, starstar)

    def _forwarded(self, node):
        if node not in self._forwarded_cache:
            self._forwarded_cache[node] = forwarded_stars(node, self.imports)
        return self._forwarded_cache[node]

    def forwarding_call(self, call: cst.Call) -> bool:
        """``call`` is DALIGenericIterator in a def of this module that hands it its ``*args``/``**kwargs``, which
        carry its pipelines (``forwarded_stars``): the migration writes it as the EpochIterator deciding at run
        time (DM241), and the pipelines callers pass there migrate as ReaderStreams (``star_inputs``)."""
        if self._forwarding_calls is None:
            self._forwarding_calls = set()
            for function in self.functions.values():
                found = self._forwarded(function.node)
                self._forwarding_calls.update(found[2] if found is not None else ())
        return call in self._forwarding_calls

    def pipelines_in(self, expr) -> frozenset:
        """The origins of the pipeline, or the list of pipelines, ``expr`` holds (empty: it holds neither)."""
        kind, origins = self.value_of(expr)
        if kind == PIPELINE or isinstance(kind, tuple) and kind[0] == "seq" and kind[1] == PIPELINE:
            return origins
        return _NO_ORIGINS

    def streamable(self, origins) -> bool:
        """Every pipeline in ``origins`` is a @pipeline_def, a `with pipe:` pipeline or a Pipeline subclass of this
        module (one the migration can write as a function that returns a ReaderStream, or as a ReaderStream
        subclass)."""
        known = self._pipeline_defs | set(self.with_origin.values()) | self._pipeline_classes
        return bool(origins) and all(o in known or is_adapted(o) for o in origins)

    def defines_pipelines(self) -> bool:
        """The module defines a pipeline of its own: a @pipeline_def, a `with pipe:` pipeline or a Pipeline subclass."""
        return bool(self._pipeline_defs or self.with_origin or self._pipeline_classes)

    def own_method(self, origins, attr: str) -> bool:
        """Every pipeline in ``origins`` is an instance of a Pipeline subclass of this module that defines the method
        ``attr`` itself (or a base class of this module does): the migrated class keeps it, so ``pipe.attr`` (and
        ``len(pipe)`` for ``__len__``) means what it meant. Not define_graph or iter_setup (they become the steps),
        nor a method define_graph calls (a graph helper, which builds part of a step)."""
        if not origins:
            return False
        by_name = {info[0]: (node, info) for node, info in self.classes.items() if info[3]}
        for origin in origins:
            found, seen, name = False, set(), origin
            while isinstance(name, str) and name in by_name and name not in seen:
                seen.add(name)
                node, (_, bases, methods, _) = by_name[name]
                graph = methods.get("define_graph")
                if attr in methods:
                    called = graph is not None and f"self.{attr}(" in _code_text(graph)
                    found = attr not in ("define_graph", "iter_setup", "feed_input") and not called
                    break
                name = next((b.value for b in bases if isinstance(b, cst.Name) and b.value in by_name), None)
            if not found:
                return False
        return True

    def outside_attributes(self, class_name: str) -> tuple:
        """What code outside this module's Pipeline subclass ``class_name`` may read of its objects, here or in
        another module of the project: ``((name, parameters), ...)``, its kept methods (``own_method``) and the plain
        attributes its own methods set (``own_plain_attribute``), each with the ``__init__`` parameters whose
        arguments decide (``_attribute_parameters``: the modules that construct it check what they pass)."""
        origins = frozenset((class_name,))
        by_name = {info[0]: node for node, info in self.classes.items() if info[3]}
        names = {name for info in self.classes.values() if info[3] for name in info[2]}
        found = {name: () for name in names if self.own_method(origins, name)}
        for attr in sorted({attr for _, attr in self._class_attr_methods} - set(found)):
            parameters = self._attribute_parameters(class_name, attr, by_name)
            if parameters is not None:
                found[attr] = parameters
        return tuple(sorted(found.items()))

    def own_plain_attribute(self, origins, attr: str) -> bool:
        """Every pipeline in ``origins`` is an instance of a Pipeline subclass of this module (or of another module of
        the project, which says so: ``imported_attributes``) whose own methods assign ``self.attr`` plain Python
        values only: the migrated class keeps those assignments, so ``pipe.attr`` read outside the class means what
        it meant (see ``_attribute_parameters``)."""
        if not origins:
            return False
        by_name = {info[0]: node for node, info in self.classes.items() if info[3]}
        for origin in origins:
            if origin not in by_name and isinstance(origin, str) and origin in self.imported_attributes:
                parameters = dict(self.imported_attributes[origin]).get(attr)
            else:
                parameters = self._attribute_parameters(origin, attr, by_name)
            if parameters is None or parameters and not self._arguments_plain(origin, parameters):
                return False
        return True

    def _attribute_parameters(self, origin, attr: str, by_name: dict) -> tuple | None:
        """None unless the Pipeline subclass ``origin`` of this module (or a base class of this module) assigns
        ``self.attr`` in its own methods, plain values only. Not where define_graph, iter_setup, feed_input or a
        method define_graph calls assigns it (they become the steps, which run ahead and elsewhere), nor a value
        that carries anything of pipeline-mode DALI (an ops object, a DataNode, a reader: the migration moves or
        rewrites them) or names nvidia.* (a types constant becomes a dynamic-mode one). Else the ``__init__``
        parameters the class's ``__init__`` assigns as they are (``self.x = x``), whose arguments decide:
        ``((name, position among the positional ones or None, its default is plain), ...)``."""
        keys, graphs, seen, name = [], [], set(), origin
        while isinstance(name, str) and name in by_name and name not in seen:
            seen.add(name)
            node = by_name[name]
            _, bases, methods, _ = self.classes[node]
            if attr in methods:
                return None  # a method: own_method decides
            if "define_graph" in methods:
                graphs.append(_code_text(methods["define_graph"]))
            if (node, attr) in self._class_attr_methods:
                keys.append(node)
            name = next((b.value for b in bases if isinstance(b, cst.Name) and b.value in by_name), None)
        if not keys:
            return None
        parameters = []
        for node in keys:
            for method in self._class_attr_methods[(node, attr)]:
                if method in ("define_graph", "iter_setup", "feed_input") or any(
                        f"self.{method}(" in graph for graph in graphs):
                    return None
            for source in self._class_attrs[(node, attr)]:
                found = self._source_value(source, None, None)
                if found is None and node is by_name.get(origin):
                    parameter = self._init_parameter(node, source)
                    if parameter is not None:
                        parameters.append(parameter)
                        continue
                if found is None or found[1] or self._names_dali(source):
                    return None  # not known, or it carries a pipeline, an output, an ops object ...
        return tuple(parameters)

    def _init_parameter(self, class_node, source):
        """``source`` (of ``self.x = param``) is a parameter of the class's ``__init__`` that nothing here gives a value
        (the model does not pass a Pipeline subclass's constructor arguments: its call makes a pipeline):
        ``(name, position among the positional ones or None, its default is plain)``; else None."""
        init = self.classes[class_node][2].get("__init__")
        function = self.functions.get(init) if init is not None else None
        if function is None or source[0] != "expr" or not isinstance(source[1], cst.Name) \
                or self._eval(source[1]) is not None:
            return None
        param = source[1].value
        given = [(name, kind, default) for name, kind, default in function.params[1:] if kind in ("pos", "kw")]
        read = self.name_scope.get(source[1])
        if param not in [name for name, _, _ in given] or read is None or \
                read.lookup_scope(param) is not self.scope_by_node.get(function.node):
            return None  # not __init__'s parameter (another method's, a local of a nested scope)
        ordered = [name for name, kind, _ in given if kind == "pos"]
        default = next(d for n, _, d in given if n == param)
        plain = default is None or self._eval(default) is not None and not self._eval(default)[1] and \
            not self._names_dali(("expr", default))
        return (param, ordered.index(param) if param in ordered else None, plain)

    def _arguments_plain(self, class_name: str, parameters: tuple) -> bool:
        """The constructor calls of this module of the Pipeline subclass ``class_name`` (one at least, none with
        ``*args``) pass each of ``parameters`` (``_init_parameter``) a plain value, or leave it its plain default."""
        seen = False
        for call, _ in self.calls:
            callee = self._eval(call.func)
            if callee is None or callee[0] != PIPELINE_FACTORY or class_name not in callee[1]:
                continue
            if any(a.star for a in call.args):
                return False
            seen = True
            positional = [a for a in call.args if a.keyword is None]
            for param, index, default_plain in parameters:
                arg = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == param),
                           positional[index].value if index is not None and index < len(positional) else None)
                if arg is None:
                    if not default_plain:
                        return False
                    continue
                value = self._eval(arg)
                if value is None or value[1] or self._names_dali(("expr", arg)):
                    return False
        return seen

    def _names_dali(self, source) -> bool:
        """The expression a binding source assigns mentions something of nvidia.* (``types.FLOAT``, ``dali.fn``)."""
        while isinstance(source, tuple):
            source = next((part for part in source[1:] if isinstance(part, (tuple, cst.CSTNode))), None)
        if not isinstance(source, cst.CSTNode):
            return True  # a source of an unknown shape: not known to be plain
        names = _NvidiaNames(self.imports)
        walk(source, names)
        return names.found

    def pipeline_functions(self, origins) -> bool:
        """Every pipeline in ``origins`` is a @pipeline_def function of this module."""
        return bool(origins) and origins <= self._pipeline_defs

    def never_empty(self, origins) -> bool:
        """Every pipeline in ``origins`` is defined here and fed by no input operator: each of its runs
        gives batch_size samples (readers wrap or pad), so a TensorList it returned is never empty and its
        truth (``len() > 0``) is True, as a Batch's always is. An external_source can give an empty batch."""
        if not origins:
            return False
        if self._input_fed is None:
            seen, fed = set(), set()
            for call, origin in self.graph_origin.items():
                seen.add(origin)
                path = self.imports.qualname(call.func) or ""
                if path in (f"{FN}.external_source", f"{OPS}.ExternalSource", f"{TYPES}.ExternalSource") \
                        or path.startswith(FN + ".") and ".inputs." in path + ".":  # fn.inputs.*, fn.experimental.inputs.*
                    fed.add(origin)
            self._graph_seen, self._input_fed = seen, fed
        return all(o in self._graph_seen and o not in self._input_fed for o in origins)

    def function_of(self, node) -> Function | None:
        return self.functions.get(node)

    def has_attribute(self, class_node, attr: str) -> bool:
        """The class (or one of the module's classes it derives from) defines or sets ``attr``."""
        for node in (class_node, *self.bases(class_node)):
            info = self.classes.get(node)
            if info is not None and attr in info[2] or (node, attr) in self._class_attrs:
                return True
        return attr in self._stored_attrs
