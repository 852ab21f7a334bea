"""Where values flow: the one model of a module that every pass, the post-check and the lint read.

It answers, for an expression of a module, *what kind of value* it holds and *which pipelines* that
value comes from (its origins):

* pipeline mode: Pipeline objects and the functions and classes that make them, what ``pipe.run()``
  returns, TensorLists and their samples, DataNodes inside pipeline definitions, legacy ``ops``
  objects;
* dynamic mode: ndd Batches and Tensors, readers and their epochs, RNGs, checkpoints, external
  sources, and the generators that yield them (a migrated pipeline is one);
* the containers and user objects that carry them: lists, tuples, dicts, generators, instances of
  the module's own classes.

It follows values through assignments, unpacking, loops, comprehensions, ``global`` names,
attributes of the module's classes (``self.x`` and ``obj.x``), container stores (``xs.append(v)``,
``d[k] = v``) and function boundaries: a function's parameters receive what its call sites in the
module pass (positional, keyword, defaults), its calls give what it returns or, for a generator,
a generator of what it yields. Methods are reached through ``self`` and through instances.

An operator named outside the pipelines' definitions (``fn.flip`` as a value, a def or lambda that calls
operators, ``fn.batch_permutation()`` outside ``with pipe:``) carries an origin of its own, its *site*: whatever
pipeline its value reaches meets it (``OPERATOR``, ``is_site``). nose's test generators (``yield check, a, b``) and
calls of a ``@pipeline_def`` or ``Pipeline`` subclass of the module pass their arguments on like calls do.

Origins make migration units possible: two pipelines whose values meet in one variable, one
container or one helper are one unit, and a value with origins that reaches a place the model
cannot follow (``TOP`` with origins) is an escape (``dali_migrate.units``).

It is flow-insensitive and conservative: a name's value is the join of **every** binding in its
scope; kinds form a small lattice solved by fixpoint iteration (``images = images.as_cpu()`` keeps
``images`` a TensorList). A parameter of a function that escapes (used other than as a callee) or
is never called here is unknown. Anything it cannot see through is ``TOP``.

``DataFlow`` lives here: it takes what one walk of the module collects (``flow_bindings``: scopes, bindings,
functions, classes, calls, with the calls test runners make, ``flow_runner_cases``), marks the functions whose
callers it cannot see, and solves. Its parts are mixins of their own modules: ``flow_solver`` (the rounds of the
fixpoint), ``flow_evaluation`` (what an expression evaluates to), ``flow_queries`` (what the passes ask); beside
them ``flow_star_args`` (``*args``/``**kwargs`` across a call), and below all of them ``flow_values`` (the kinds,
their lattice, origins).
"""

from __future__ import annotations

import libcst as cst

from .names import FN, NDD, ImportTable, dotted  # noqa: F401 (postcheck reads df.FN, df.NDD)
from .flow_values import (ADAPTED_PREFIX, DALI_ITERATOR, DATA_KINDS, DATANODE, DATANODES, element, GENERATOR_FACTORY,
                          is_adapted, is_dali_kind, is_data, is_literal, is_site, join, join_kind, keyword,
                          literal_int, METADATA_ATTRIBUTES, METADATA_METHODS, op_path, OPERATOR, operator_path,
                          ops_object_path, OUTPUTS, PIPELINE, pipeline_argument, PIPELINE_CLASS, PIPELINE_DEF,
                          PIPELINE_FACTORY, PLAIN, PLUGIN_PREFIX, reader_path, RUN_METHODS, site_module,
                          site_operator, SITE_PREFIX, STREAM_CLASS, STREAM_FACTORY, TENSORCPU, TENSORLIST,
                          TF_ITERATOR_OP, TF_OP, TF_OP_CLASS, TOP, TORCH_ITERATORS, tuple_of, UNKNOWN, Value, value)  # noqa: F401 (the values the model solves over; its readers reach them here too)
from .reaching import Reaching
from .flow_bindings import Function, Scope, _Collector, _is_pipeline_def  # noqa: F401 (__all__)
from .flow_evaluation import FlowEvaluation
from .flow_queries import FlowQueries
from .flow_runner_cases import _CASE_DECORATORS, parametrizes  # noqa: F401 (units reads df.parametrizes)
from .flow_solver import FlowSolver
from .flow_star_args import spread_over  # noqa: F401 (units reads df.spread_over)
from .walk import walk


class DataFlow(FlowQueries, FlowSolver, FlowEvaluation):
    """The answers for one module: ``kind_of(expr)``, ``origins_of(expr)``, ``value_of(expr)``.

    ``extra_pipelines``: names of functions or classes that are pipelines although nothing here says
    so (migrated pipelines, by the origin they had; pipelines imported from other modules).
    ``imported_generators``: names imported from modules of the project that migrated them, each with its
    ``project.ProjectPipeline``: calling one gives a generator, or a ReaderStream where it is ``streamed``."""

    def __init__(self, module: cst.Module, imports: ImportTable, extra_pipelines: dict[str, str] | None = None,
                 imported_generators: dict | None = None, param_seeds: dict | None = None,
                 iterator_wrappers: dict[str, frozenset] | None = None, adapted: dict | None = None,
                 imported_attributes: dict[str, frozenset] | None = None):
        self.module = module
        # What it was built from, besides the module object (``built_from``).
        self._inputs = _inputs(imports, extra_pipelines, imported_generators, param_seeds, iterator_wrappers, adapted,
                               imported_attributes)
        # Pipeline subclasses imported from other modules of the project (their origin here): the attributes code
        # outside the class may read (project.ProjectPipeline.attributes).
        self.imported_attributes = imported_attributes or {}
        # {top-level function or class name: {parameter: value}}: what a parameter holds whatever the module's own
        # calls and other modules pass, because the function adapts it at run time (unroll/adapted.py).
        self.adapted = adapted or {}
        self.imports = imports
        # Other modules' functions and classes that hand arguments straight to a run-time-deciding PyTorch iterator
        # (project.Project.iterator_wrappers): qualname -> the positions and keywords that may carry pipelines.
        self.iterator_wrappers = iterator_wrappers or {}
        collector = _Collector(imports, extra_pipelines, imported_generators)
        walk(module, collector)  # read-only: no rebuild
        collector.with_called_sites()
        defined = {f.name for f in collector.functions.values()}
        for case, scope in collector.helper_cases:
            if case.func.value in defined:
                collector.calls.append((case, scope))
                collector.callees.add(case.func)
        self.module_scope = collector.scopes[0]
        self.scopes = collector.scopes
        self.scope_by_node = collector.scope_by_node
        self.name_scope = collector.name_scope
        self.functions = collector.functions
        self.classes = collector.classes
        self.pipeline_calls = collector.pipeline_calls
        self.graph_origin = collector.graph_origin
        self.operator_sites = collector.operator_sites
        self._site_nodes: dict | None = None  # site -> its node (ops_objects_in), made when first asked
        self.function_sites = collector.function_sites
        self.with_origin = collector.with_origin
        self.calls = collector.calls
        self._super_calls = collector.super_calls
        self.calls_dali = collector.calls_dali  # False: no value in this module can be pipeline-mode DALI
        self._class_attrs = collector.class_attrs
        self._class_attr_methods = collector.class_attr_methods
        self._attr_stores = collector.attr_stores
        self._dict_names = collector.dict_names
        # Names imported from the project's other modules that the model knows (pipelines, factories).
        self.extra_imported = set(extra_pipelines or ()) | set(imported_generators or ())
        self._stored_attrs = {attr for _, attr in collector.class_attrs} | {a for _, a, _ in collector.attr_stores}
        self._callees = collector.callees
        self._values: dict[tuple[int, str], Value | None] = {}
        # A name bound both inside a pipeline's definition (a DataNode) and outside it: what code outside
        # the definition reads (a notebook that reuses `images` after its `with pipe:` cell, say).
        self._outside: dict[tuple[int, str], Value | None] = {}
        self.graph_names = collector.graph_names
        # What each binding holds, and which bindings a read can see (a name rebound to a converted value).
        self._binding_values: dict[tuple[int, str, int], Value | None] = {}
        self._reaching = Reaching(collector.binding_chain, collector.read_statement, collector.unordered)
        self._binding_chain, self._unordered_bindings = collector.binding_chain, collector.unordered
        self._attr_values: dict[tuple, Value | None] = {}
        self._input_fed: set | None = None  # pipelines an input operator feeds (``never_empty``)
        self._metadata_asked: frozenset | None = None
        self.attributes = collector.attributes
        self._pipeline_defs = collector.pipeline_defs
        self._pipeline_classes = frozenset(collector.pipeline_classes)
        self._graph_seen: set = set()
        self._params: dict[tuple, Value | None] = {}
        self._returns: dict = {}
        self.call_targets: dict[cst.Call, tuple] = {}  # call -> (Function, offset) it reaches
        self._forwarded_cache: dict = {}  # def node -> forwarded_stars(def)
        self._forwarding_calls: set | None = None  # the iterator calls those defs hand their *args/**kwargs to
        self.module_scope_functions = {s for s in module.body if isinstance(s, cst.FunctionDef)}
        self.module_scope_classes = {s for s in module.body if isinstance(s, cst.ClassDef)}
        # What other modules of the project pass to this module's top-level functions and classes:
        # {name: {position or keyword: value}} (``engine``: a call in another module).
        self.param_seeds = param_seeds or {}
        self.seeded: dict[str, cst.CSTNode] = {}  # name -> the def or class that gets seeds (the last one)
        for statement in module.body:
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) and (
                    statement.name.value in self.param_seeds or statement.name.value in self.adapted):
                self.seeded[statement.name.value] = statement
        # Answers computed from this model alone (``prefetch.stepped_once``...), kept for every run of the passes
        # that shares it: the passes run again for each unit kept in pipeline mode (engine._migrate_units).
        self.derived: dict = {}
        self._lookup_plans: dict[cst.Name, tuple] = {}
        # The solver re-evaluates a unit of work (a name's bindings, a parameter-passing call, a function's result,
        # an attribute's stores) only when something it read last time has changed since (``_stale``): the reads of
        # the tables below go into ``_reads`` while a unit is evaluated, each change stamps its entry with ``_clock``.
        self._reads: set | None = None
        self._clock = 0
        self._stamps: dict[tuple, int] = {}
        self._evaluated: dict = {}  # unit -> (the clock when it was evaluated, what it read)
        self._readers: dict[tuple, set] = {}  # an entry -> the units whose evaluations read it
        self._dirty: set = set()  # evaluated units something they read has changed since (``_stale``)
        self._passed: dict = {}  # call -> (what it reaches, the (parameter, value) it passes, in order)
        self._pipeline_functions = {f.pipeline: f for f in self.functions.values()
                                    if f.pipeline and isinstance(f.node, cst.FunctionDef) and f.pipeline in
                                    collector.pipeline_defs}
        self._mark_escaping_functions(collector)
        self._solve()

    def built_from(self, module: cst.Module, imports: ImportTable, extra_pipelines: dict[str, str] | None = None,
                   imported_generators: dict | None = None, param_seeds: dict | None = None,
                   iterator_wrappers: dict[str, frozenset] | None = None, adapted: dict | None = None,
                   imported_attributes: dict[str, frozenset] | None = None) -> bool:
        """Whether ``DataFlow(module, imports, ...)`` would be this model: the same module object, and the same
        import entries (this model's table unchanged since) and other inputs, by value. Then a caller may read this
        model instead of solving the module again (the post-check of a module no pass changed): its answers are a
        function of those inputs alone, and what it keeps on the side (``derived``, memos) holds answers only."""
        inputs = _inputs(imports, extra_pipelines, imported_generators, param_seeds, iterator_wrappers, adapted,
                         imported_attributes)
        return module is self.module and inputs == self._inputs and self._inputs[0] == _import_entries(self.imports)

    # -- setting up -------------------------------------------------------------------------------
    def _mark_escaping_functions(self, collector: _Collector) -> None:
        """A function referenced other than as a callee (a callback, a stored value, ``map(f, xs)``,
        ``callback=self.step``) has callers we cannot see: its parameters are unknown."""
        by_name: dict[str, list[Function]] = {}
        for function in self.functions.values():
            if isinstance(function.node, cst.FunctionDef):
                by_name.setdefault(function.name, []).append(function)
        defined_in = collector.defined_in
        for name, scope in self.name_scope.items():
            if name.value in by_name and name not in self._callees and name not in collector.not_references:
                seen = scope.lookup_scope(name.value)
                for function in by_name[name.value]:
                    # A local of the same name elsewhere (``step = next(gen)`` in another function) is not it.
                    if seen is None or defined_in.get(function.node, seen) is seen:
                        function.escapes = True
        for attribute in collector.attributes:
            if attribute.attr.value in by_name and attribute not in self._callees:
                for function in by_name[attribute.attr.value]:
                    if function.class_node is not None:
                        function.escapes = True
        for function in self.functions.values():
            if isinstance(function.node, cst.Lambda):
                function.escapes = True  # a lambda is handed to someone else, by nature
            elif function.node.decorators and not all(
                    _transparent_decorator(d, self.imports) for d in function.node.decorators):
                function.escapes = True


def _import_entries(imports: ImportTable) -> tuple:
    return dict(imports.aliases), frozenset(imports.plain_imports)


def _inputs(imports: ImportTable, *others) -> tuple:
    """A model's inputs by value (None and an empty mapping alike, as the model reads them)."""
    return (_import_entries(imports), *(dict(other or {}) for other in others))


_TRANSPARENT_DECORATORS = {"staticmethod", "classmethod", "property", "functools.wraps", "torch.no_grad",
                           "torch.inference_mode", "contextlib.contextmanager", "functools.lru_cache",
                           "functools.cache"}


def _transparent_decorator(decorator: cst.Decorator, imports: ImportTable) -> bool:
    """Decorators that keep who calls the function visible (they call it with the same arguments)."""
    expr = decorator.decorator
    if isinstance(expr, cst.Call):
        expr = expr.func
    name = imports.qualname(expr) or dotted(expr) or ""
    return name in _TRANSPARENT_DECORATORS or name.rsplit(".", 1)[-1] in ("no_grad", "inference_mode", "wraps") \
        or _is_pipeline_def(decorator, imports) or name in _CASE_DECORATORS  # (its calls: _parametrized_cases)


__all__ = ["DataFlow", "Scope", "Function", "PIPELINE", "PIPELINE_FACTORY", "OUTPUTS", "TENSORLIST", "TENSORCPU",
           "DATANODE", "DATANODES", "DALI_ITERATOR", "TF_OP", "GENERATOR_FACTORY", "STREAM_FACTORY", "TOP", "DATA_KINDS", "element", "join", "join_kind",
           "is_literal", "literal_int", "keyword", "reader_path", "op_path", "is_dali_kind"]
