"""The transformer that unrolls a module's pipelines (``Unroller``), and what it decides before it rewrites anything.

Before the walk (``_prepare``, ``plan_params``), from what ``discovery.py`` found: which pipelines unroll and which
stay in pipeline mode (marked), each one's description (``_describe_def``, ``class_description.describe_class``,
``graph.build_graph``), which are written as ReaderStreams (``streamed``: their metadata or epochs are asked for),
which parameters each generator takes, and what a name or value holding a pipeline stands for (``_pipe_kind_of``).
The rewrites are the Unroller's parts, one module each: where pipelines are defined (``definitions.py``), where they
are used (``call_sites.py``), random ops outside them (``random_outside.py``), and the whole module at the end
(``finish.py``).
"""

from __future__ import annotations

import libcst as cst

from ... import dataflow as df
from ... import optable
from ...names import dotted
from ...files import module_name_of
from ..base import MigrationTransformer
from ...walk import walk
from . import body_ops, checkpoints, current, per_sample, rules
from .graph import build_graph, eager_sources
from .generator_code import takes_device
from .outputs import closing_returns, output_elements
from .step_calls import Env
from .model import (CORE, AssignedNames, CannotUnroll, NameReads, PipelineDesc, code_of, expr, fn_path, kwarg,
                    literal_value, ops_fn_entry)
from .signature import generator_names, pipeline_call_config, takes_seed, threads_plan
from .discovery import RNG_OPS, Discovery, _is_pipeline_def
from .random_outside import RandomOpsOutside
from .call_sites import UNSUPPORTED_METHODS, CallSiteRewrites
from .definitions import DefinitionRewrites, _is_docstring
from .finish import ModuleFinish


def streamable(desc) -> bool:
    """A @pipeline_def pipeline that can be written as a ReaderStream, answering its readers' metadata at run time:
    it has readers (or sources that end epochs) and no checkpointing."""
    return desc.style == "def" and bool(desc.readers or desc.extra.get("conditional_readers") or eager_sources(desc)) \
        and not desc.extra.get("checkpoint")


# Methods the Unroller rewrites or marks on the objects that hold pipelines (and on `self`).
_METHOD_WORDS = frozenset({*UNSUPPORTED_METHODS, "run", "build", "epoch_size", "reader_meta", "checkpoint",
                           "set_outputs", "_prefetch", "reset"})


class Unroller(DefinitionRewrites, CallSiteRewrites, RandomOpsOutside, ModuleFinish, MigrationTransformer):
    def __init__(self, ctx, discovery: Discovery):
        super().__init__(ctx)
        self.d = discovery
        self.descs: dict[str, PipelineDesc] = {}
        self.keep: set[str] = ctx.facts.setdefault("keep_pipeline_mode", set())
        self.need_epoch_iterator = False
        self.need_prefetch = False
        self.need_sample_split = False
        self.need_stream = False
        self.need_tf_dataset = False  # DALIDataset -> TFDataset (frameworks.py)
        self.need_tf_iterator = False  # DALIIterator() -> TFIterator() (frameworks.py)
        self.need_jax_iterator = False
        self.rng_counter = [0]
        self._reported_once: set[tuple[str, str]] = set()
        self._scope: list[str] = []
        self._classes: list[str] = []  # the classes around the node being rewritten, innermost last
        self._functions: list[cst.FunctionDef] = []
        self._adopted_randoms: set[cst.Call] = set()  # random ops that move into a `with pipe:` (withstyle)
        self._seed_functions: dict = {}  # FunctionDef -> left as it was for its seeded random ops (_left_for_seeds)
        self.unmarked_randoms: set[cst.Call] = set()  # ... as rewritten, left unmarked for that move
        # Unroll definitions first (the transformer sees calls before or after the defs).
        self._prepare()

    def relevant_names(self):
        """Every word through which this transformer changes or marks code: DALI aliases (pipelines,
        ops, iterators, ``Pipeline.deserialize``), the pipelines, factories and checkpointed callables
        of this module and the project, the variables that hold one (``with pipe:``, ``pipe.run()``),
        and the method names it reacts to on any object (``self.feed_input()``). ``with pipe:`` blocks
        are unrolled from the block that holds them, which mentions the Pipeline alias."""
        d = self.d
        pipelines = {*d.defs, *d.classes, *d.factories, *d.imported(), *self.descs, *self.checkpoint_factories,
                     *self.imported_objects}
        words = set(self.ctx.imports.dali_locals()) | _METHOD_WORDS | pipelines | d.checkpointed_calls
        words |= set(getattr(self, "iterator_subclasses", ()))
        if any(s.super_inits or s.verbatim_init or s.init_calls for s in getattr(self, "iterator_subclasses", {}).values()):
            # their super().__init__(...) gets the EpochIterator's arguments, or, in a class that stays, is marked
            # where it gets a pipeline of this module
            words.add("super")
        for key, (kind, pipeline, _) in d.pipe_vars.items():
            if kind == "with" or pipeline in pipelines:
                words.update(key.split(":", 1)[1].split("."))
        for key in d.with_blocks:
            words.update(key.split(":", 1)[1].split("."))
        for name in d.with_names:
            words.update(name.split("."))
        return words

    # -- helpers ----------------------------------------------------------------------------
    def migrated_origin(self, name: str, origin: str) -> None:
        """Note that the migrated module defines the pipeline ``origin`` under ``name`` (the post-check
        reads the migrated module with it)."""
        self.ctx.facts.setdefault("migrated_origins", {})[name] = origin

    def _reporter(self, rule_id, message, node):
        self.report(rule_id, message, node)

    def pipe_var(self, name: str):
        """The (kind, pipeline, call) bound to ``name`` in the current function, else at module level."""
        scope = ".".join(self._scope)
        found = self.d.pipe_vars.get(f"{scope}:{name}")
        if found is None and "." not in name:
            found = self.d.pipe_vars.get(f":{name}")
        return found

    def var_methods(self, name: str) -> set[str]:
        return self.d.var_methods.get(".".join(self._scope) + ":" + name, set())

    def restarts(self, key: str, desc: PipelineDesc) -> bool:
        """``desc`` is written as a ReaderStream whose steps end with the epoch its external source ends and
        start again on reset(): its source can end, it has no reader, and the module resets it (or its
        source has cycle="raise", whose only use is that)."""
        return bool(desc.extra.get("restartable")) and not desc.extra.get("checkpoint") and \
            not desc.extra.get("imported") and (key in self.epochs_asked or any(
                spec.raises for _, _, spec in desc.extra.get("source_slots", ())))

    def _is_pipeline_def(self, node) -> bool:
        return self.d.defs.get(node.name.value) is node or node in self.d.earlier_defs

    def visit_FunctionDef(self, node):
        self._scope.append(node.name.value)
        self._functions.append(node)
        if self._is_pipeline_def(node):
            self._pipeline_depth += 1
        return True

    def visit_ClassDef(self, node):
        if self.d.classes.get(node.name.value) is node:
            self._pipeline_depth += 1
        self._classes.append(node.name.value)
        return True

    def in_migrated_class(self) -> bool:
        """The code being rewritten is in a Pipeline subclass that this run migrates (its ``self`` is the
        migrated pipeline)."""
        desc = self.descs.get(self._classes[-1]) if self._classes else None
        return desc is not None and desc.style == "class" and desc.name not in self.ctx.kept

    def streams(self, node) -> bool:
        """``node`` holds a pipeline (or a list of them) that the migration writes as a ReaderStream, which
        answers epoch_size()/reader_meta()/max_batch_size itself at run time (unroll/stream.py)."""
        flow = self.ctx.facts.get("flow")
        if flow is None or node is None:
            return False
        origins = flow.pipelines_in(node)
        return bool(origins) and origins <= self.streamed and not origins & self.ctx.kept

    def untraced(self, node) -> bool:
        """No pipeline of this run reaches ``node`` as far as the flow model sees (a parameter, an attribute, a value
        of another module): at run time it holds a pipeline-mode Pipeline or a migrated pipeline of a caller, and
        the EpochIterator decides which (DM241). A pipeline of this module that went where the model cannot follow
        stays in pipeline mode (DM231), so it is a Pipeline there."""
        flow = self.ctx.facts.get("flow")
        if flow is None or node is None or flow.pipelines_in(node):
            return False
        name = dotted(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
        return self._pipe_kind_of(node, name) is None and not (name == "self" and self.in_migrated_class())

    def _pipe_kind_of(self, node, name: str | None):
        """``_pipe_kind(name)``, or, where the pipeline reaches ``node`` some other way (returned by a
        factory, passed as a parameter, held in a list, a dict or an attribute), what the flow model says:
        ("def"|"with", origin) when every pipeline it can be is one that is unrolled to a generator."""
        found = self._pipe_kind(name) if name else None
        if found is not None:
            return found
        styles, origins = self._unrolled_styles(node)
        return (styles.pop(), sorted(origins)[0]) if len(styles) == 1 else None

    def _unrolled_styles(self, node) -> tuple[set, frozenset]:
        """(the styles, the origins) of the pipelines of this module that ``node`` holds, as the flow model sees
        them; no styles unless every one of them is unrolled."""
        flow = self.ctx.facts.get("flow")
        if flow is None or node is None:
            return set(), frozenset()
        kind, origins = flow.value_of(node)
        if kind != df.PIPELINE or not origins or origins & self.ctx.kept:
            return set(), frozenset()
        styles = set()
        for origin in origins:
            desc = self.descs.get(origin)
            if df.is_adapted(origin):  # given from elsewhere, a ReaderStream once adapted (adapted.py)
                styles.add("class")
            elif desc is not None and desc.style in ("def", "with", "class"):
                styles.add(desc.style)
            elif origin in self.with_ok:
                styles.add("with")
            else:
                return set(), frozenset()  # not unrolled
        return styles, origins

    def _mixed_styles(self, node) -> bool:
        """``node`` holds pipelines of this module that all migrate, but not the same way (a @pipeline_def's
        generator and a Pipeline subclass's ReaderStream, say, given to one function's parameter): each gives its
        steps by next() and needs no build(), and that is all the tool rewrites on it."""
        return len(self._unrolled_styles(node)[0]) > 1

    def _pipe_kind(self, name: str):
        """("def"|"class"|"with", pipeline name) for a variable that holds a pipeline."""
        found = self.pipe_var(name)
        if found is None:
            if name in getattr(self, "imported_objects", {}):
                return ("object", name)  # a module-level `with pipe:` pipeline imported from the project
            return None
        kind, pipeline, _ = found
        if kind == "with":
            return ("with", pipeline) if self._with_ok(name) else None
        if pipeline in self.d.factories and self.d.factories[pipeline] in self.with_ok:
            return ("factory", pipeline)
        if pipeline in self.descs:
            return (self.descs[pipeline].style, pipeline)
        return None

    def _with_key(self, name):
        scope = ".".join(self._scope)
        return f"{scope}:{name}" if f"{scope}:{name}" in self.with_ok or "." in name else f":{name}"

    def _with_ok(self, name):
        scope = ".".join(self._scope)
        return f"{scope}:{name}" in self.with_ok or (f":{name}" in self.with_ok and "." not in name)

    def _prepare(self):
        # `with pipe:` blocks are unrolled when their enclosing block is left, after the code that
        # uses them was visited: decide now which ones will unroll, so consumers follow suit.
        self.with_ok = set()
        self.with_refused: dict[str, CannotUnroll] = {}  # with key -> why its graph cannot be described
        self.with_checkpoint: dict[str, dict] = {}  # with key -> checkpoints.with_plan(...)
        self.with_readers: set[str] = set()  # with keys whose graph has a reader (it can be a ReaderStream)
        quiet = Env(self.ctx, lambda *a: None, batch_size="batch_size", seed="seed", rng_mode=self.d.rng_mode)
        from .withstyle import graph_statements
        kept = self.ctx.kept  # units that stay in pipeline mode: not described, not rewritten
        for key, (with_node, call) in self.d.with_blocks.items():
            if key in kept:
                continue
            name = key.split(":", 1)[1]
            statements = list(with_node.body.body)
            try:
                config = pipeline_call_config(call)
                self._check_config(name, config, with_node)
                graph = graph_statements(statements, name, self.ctx.imports)
                if graph is None:
                    continue
                described = PipelineDesc(name=name, style="with", node=with_node, config=config)
                build_graph(described, *graph, quiet)
                self.with_ok.add(key)
                if described.readers or described.extra.get("conditional_readers"):
                    self.with_readers.add(key)
                if checkpoints.enabled(config):
                    self.with_checkpoint[key] = checkpoints.with_plan(self.d, key, config)
            except CannotUnroll as e:
                # (a block over a Pipeline made elsewhere is marked with it: withstyle); a copy never raised, without
                # the traceback whose frames would hold the tree in a reference cycle
                self.with_refused[key] = CannotUnroll(e.reason, e.node, e.rule)
        # factory name -> the parameter that carries its pipeline's checkpoint
        self.checkpoint_factories = {plan["factory"]: plan["param"] for plan in self.with_checkpoint.values()
                                     if plan.get("factory")}
        self.earlier_descs: dict[cst.FunctionDef, PipelineDesc] = {}  # redefined names: the earlier defs
        for node in [*self.d.earlier_defs, *self.d.defs.values()]:
            name = node.name.value
            if name in kept:
                continue
            try:
                desc = self._describe_def(node)
            except CannotUnroll as e:
                self._cannot(name, node, e)
                continue
            if self.d.defs[name] is node:
                self.descs[name] = desc
            else:
                self.earlier_descs[node] = desc
        for name, node in self.d.classes.items():
            if name in kept:
                continue
            try:
                self.descs[name] = self._describe_class(node)
            except CannotUnroll as e:
                self._cannot(name, node, e)
                self._kept_across_modules(name, e)
        flow = self.ctx.facts.get("flow")
        asked = flow.metadata_asked() if flow is not None else frozenset()
        self.streamed = {name for name in asked if name in self.descs and streamable(self.descs[name])
                         and not self.descs[name].extra.get("imported")}
        project = self.ctx.facts.get("project")
        here = module_name_of(self.ctx.path) if project else None
        project = project if project and here in project.imported_modules else None
        if project:  # pipelines other modules import: any of them may ask. The pre-scan decided which ones this
            # module writes as ReaderStreams (project.scan_source) and the importers rely on it: read, not redone.
            self.streamed |= {name for name in self.descs
                              if (exported := project.pipelines.get(f"{here}.{name}")) is not None and exported.streamed}
            self.streamed |= {key for function, key in self.d.factories.items() if key in self.with_ok
                              and (exported := project.pipelines.get(f"{here}.{function}")) is not None
                              and exported.streamed}
        self.streamed |= {key for key in asked & self.with_ok if key not in self.with_checkpoint}
        # pipelines whose source ends an epoch, started again by reset() or a PyTorch iterator (stream.py, epochs)
        self.epochs_asked = flow.epochs_asked() if flow is not None else frozenset()
        self.streamed |= {name for name, desc in self.descs.items() if desc.style == "def" and self.restarts(name, desc)}
        self.streamed |= {key for key in self.epochs_asked & self.with_ok if key not in self.with_checkpoint}
        # a migrated Pipeline subclass is a ReaderStream itself (class_writing.stream_bases)
        self.streamed |= {name for name, desc in self.descs.items() if desc.style == "class"
                          and not desc.extra.get("checkpoint") and not desc.extra.get("imported")}
        self.adapted = {}  # def node -> [(parameter, origin)] it adapts at run time (adapted.py)
        self._adapted_names = {}  # the same def node -> its top-level function's or class's name
        for name, params in (flow.adapted if flow is not None else {}).items():
            node = flow.seeded_function(flow.seeded[name])
            self.adapted[node] = [(param, next(iter(found[1]))) for param, found in params.items()]
            self._adapted_names[node] = name
            self.streamed |= {next(iter(found[1])) for found in params.values()}
        self.imported_objects: dict[str, object] = {}
        for local, pipeline in self.d.imported().items():
            if local in self.descs or local in self.d.defs or local in self.d.classes or local in kept:
                continue  # a local definition shadows the import
            if pipeline.style == "object":
                self.imported_objects[local] = pipeline
            elif pipeline.style == "factory":
                self.d.factories.setdefault(local, f"<imported>:{local}")
                self.with_ok.add(f"<imported>:{local}")
                if pipeline.streamed:  # its module writes it as a ReaderStream (above, in that module's run)
                    self.streamed |= {local, f"<imported>:{local}"}
            else:
                self.descs[local] = _imported_desc(local, pipeline)
                if pipeline.streamed or pipeline.style == "class" and not pipeline.checkpoint:
                    # its module writes it as a ReaderStream (in that module's run; a Pipeline subclass is one)
                    self.streamed.add(local)

    def _kept_across_modules(self, name: str, error: CannotUnroll) -> None:
        """A class kept in pipeline mode whose base or subclasses are in other modules of the run: they stay in
        pipeline mode with it (``api._agree_on_kept_units`` hands ``kept_pipelines`` on to those modules)."""
        project = self.ctx.facts.get("project")
        if not project or not project.pipeline_classes:
            return
        here = module_name_of(self.ctx.path)
        related = [record.qualname for record in project.foreign_subclasses(here, name)]
        base = project.foreign_base(here, name)
        if base is not None:
            related.append(base.qualname)
        if related:
            kept = self.ctx.facts.setdefault("classes_kept", {})
            for qualname in [f"{here}.{name}", *related]:
                kept.setdefault(qualname, (here, f"in {here}: {name} stays in pipeline mode: {error.reason}"))

    def _cannot(self, name, node, error: CannotUnroll):
        self.keep.add(name)
        self._pending_marks.setdefault(node, []).append(
            (error.rule or (rules.CONDITIONALS.id if error.reason.startswith("enable_conditionals")
                            else rules.CANNOT_UNROLL.id),
             f"{name} stays in pipeline mode: {error.reason}"))

    @property
    def _pending_marks(self):
        return self.__dict__.setdefault("_marks", {})

    def _env(self, *, prefix="") -> Env:
        return Env(self.ctx, self._reporter, batch_size=f"{prefix}batch_size", seed=f"{prefix}seed",
                   rng_mode=self.d.rng_mode, prefix=prefix, rng_counter=self.rng_counter)

    def _helpers_may_draw(self, origin: str) -> bool:
        """The pipeline's graph calls a helper that draws random numbers (one of this module's, read here),
        or one imported from elsewhere (which may: its seed must be set all the same)."""
        flow = self.ctx.facts.get("flow")
        if flow is None:
            return False
        for call, graph in flow.graph_origin.items():
            if graph != origin:
                continue
            qualname = self.ctx.imports.qualname(call.func)
            if qualname is not None and not qualname.startswith("nvidia.") and not (
                    qualname.startswith("numpy.") and not qualname.startswith("numpy.random")):
                return True  # (numpy outside numpy.random draws nothing: np.float32(4.0), np.array(...))
            reached = flow.call_targets.get(call)
            if reached is not None and _draws(reached[0].node, self.ctx.imports):
                return True
            if any(df.is_site(o) and _random_ops_site(o) for o in flow.origins_of(call)):
                return True  # its value meets a random ops object made outside (``self.coin()`` in augment(images))
        return False

    def _check_config(self, name, config, node, conditionals=False):
        """``conditionals``: the caller rewrites per-sample ``if``s (a @pipeline_def, per_sample.py); elsewhere
        (a Pipeline subclass or ``Pipeline()``, which DALI 2.4.0 does not let enable them) they stay marked."""
        if not conditionals and config.get("enable_conditionals") is not None and \
                literal_value(config["enable_conditionals"]) is not False:
            raise CannotUnroll("enable_conditionals=True: only @pipeline_def enables conditionals (DALI 2.4.0's "
                               "Pipeline() raises TypeError on the keyword), so the migration keeps this one as it "
                               "is", node)
        for option in ("py_num_workers", "py_start_method"):
            if option in config:  # the worker processes of parallel external sources: those now run in-thread
                self.report(rules.EXTERNAL_SOURCE.id, f"{name}: {option}={code_of(config[option])} is dropped: "
                            f"parallel external_source callbacks are called in the generator's own thread", node)

    # -- @pipeline_def -----------------------------------------------------------------------
    def _describe_def(self, node: cst.FunctionDef) -> PipelineDesc:
        config: dict[str, cst.BaseExpression] = {}
        for decorator in node.decorators:
            found = _is_pipeline_def(self.ctx.imports, decorator)
            if isinstance(found, cst.Call):
                config.update(pipeline_call_config(found))
        self._check_config(node.name.value, config, node, conditionals=True)
        statements = list(node.body.body)
        docstring = []
        if statements and _is_docstring(statements[0]):
            docstring = [statements.pop(0)]
        conditionals = per_sample.enabled(config) or per_sample.used(statements, self._env())
        if conditionals:
            per_sample.check_returns(statements, self._env())
            per_sample.check_helpers(statements, self._env())
        statements, branched = closing_returns(statements, self.ctx.imports, self.report, node.name.value)
        if not branched and (not statements or not _is_return(statements[-1])):
            raise CannotUnroll("the pipeline function does not end with `return <outputs>`", node)
        params = [p.name.value for p in node.params.params]
        _no_hidden_names(node, params, config)
        statements, current_options = current.substitute(statements, params, self.ctx.imports)
        statements = body_ops.inline(statements, params, self.ctx.imports, self.report)
        desc = PipelineDesc(name=node.name.value, style="def", node=node, config=config)
        if conditionals:  # per-sample ifs: split, branches, merges (per_sample.py)
            statements, desc.extra["steps_anyway"], desc.extra["sample_split"] = per_sample.rewrite(
                statements, self._env())
            if desc.extra["sample_split"]:
                self.report(rules.CONDITIONALS_SPLIT.id, f"{node.name.value}: each `if` on pipeline data -> "
                            f"{per_sample.CLASS_NAME}(condition): each branch runs on the samples that take it, its "
                            f"values merged back in sample order, as pipeline mode did", node)
        desc.params = params
        desc.extra["current_options"] = current_options
        desc.param_defaults = {p.name.value: p.default for p in node.params.params if p.default is not None}
        if branched:  # each branch of the closing if/else yields its own outputs
            build_graph(desc, statements, None, self._env())
        else:
            build_graph(desc, statements[:-1], output_elements(statements[-1].body[0].value), self._env(),
                        closing=statements[-1])
        desc.has_random = desc.has_random or self._helpers_may_draw(desc.name)
        desc.pre = docstring + desc.pre  # the docstring stays first
        if checkpoints.enabled(config) or desc.name in self.d.checkpointed_calls:
            desc.extra["checkpoint"] = True
            for reader in desc.readers:
                reader.call = checkpoints.reader_call(reader.call)
        return desc

    # -- Pipeline subclasses with define_graph -----------------------------------------------
    def _describe_class(self, node: cst.ClassDef) -> PipelineDesc:
        from .class_description import describe_class
        desc = describe_class(self, node)
        # random ops in its helper methods, or in graph helpers it calls: the pipeline's seed applies to them
        desc.has_random = desc.has_random or not desc.extra.get("base") and (self._helpers_may_draw(desc.name) or any(
            _draws(method, self.ctx.imports) for method in node.body.body
            if isinstance(method, cst.FunctionDef) and method.name.value not in ("__init__", "define_graph")))
        return desc

    # -- what the generators take: only the parameters their bodies or callers use --------------------
    def adopt_adapted(self, module: cst.Module) -> None:
        """``self.adapted`` keyed by the defs of ``module``, the tree this pass rewrites: the flow model knows the defs
        of the parse, and an earlier pass that changed a def's body (``x.as_array()``, the tensorlist pass) made a
        new node for it. A top-level function's def is the last one of its name, as the model seeds it; a class's,
        its own ``__init__`` (an inherited one keeps the model's node)."""
        current = {s.name.value: s for s in module.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))}
        adopted = {}
        for node, params in self.adapted.items():
            found = current.get(self._adapted_names[node])
            if isinstance(found, cst.ClassDef) and isinstance(found.body, cst.IndentedBlock):
                found = next((s for s in found.body.body if isinstance(s, cst.FunctionDef)
                              and s.name.value == "__init__"), None)
            adopted[found if isinstance(found, cst.FunctionDef) else node] = params
        self.adapted = adopted

    def plan_params(self, module: cst.Module) -> None:
        """Decide, for each top-level ``@pipeline_def`` unrolled here, which of ``batch_size``, ``num_threads``,
        ``device_id`` and ``seed`` its generator takes (``desc.extra["core"]``), before any call site is
        rewritten (calls may come before the definition).

        * ``batch_size`` always (the loop reads it, callers pass it);
        * ``device_id`` where the decorator or a call gives one that is not ``None``/``0``: the generator runs its
          steps on that GPU (``device_of``);
        * ``seed`` where the readers or RNG objects read it, where ``set_seed`` gets a seed the decorator or a
          caller gives, or where a call passes a value that is not plain (its evaluation is kept); with no seed
          anywhere, pipeline mode drew one at random, and the generator does not call ``set_seed`` either;
        * ``num_threads`` only where a call passes a value that is not a literal; otherwise the pipeline's
          thread count is a constant and ``finish`` grows the pool once for the whole module, to the largest
          such constant, before the first of these definitions (nothing when it is 1 or unset).

        Call sites drop the options the generator no longer takes (``_fix_call_site``, reported). A pipeline
        whose callers are not all plain calls in this module (passed as a value, called with ``**``, imported
        by another module of the run) keeps all four, as before."""
        self.module_threads = 0
        self.module_thread_pipelines: list[str] = []
        candidates = {name: desc for name, desc in self.descs.items()
                      if desc.style == "def" and not desc.extra.get("imported") and desc.node is not None
                      and any(s is desc.node for s in module.body)}
        if not candidates:
            return
        uses = _PipelineUses(set(candidates))
        walk(module, uses)
        project = self.ctx.facts.get("project")
        # another module of the run imports this one: its callers are not all here
        exported = project is not None and module_name_of(self.ctx.path) in project.imported_modules
        for name, desc in candidates.items():
            calls = uses.calls.get(name, [])
            if name in uses.escapes or exported or any(a.star for c in calls for a in c.args):
                continue  # callers the migration cannot see: every parameter stays
            names, outside_seeding = generator_names(desc, self._env())
            core = ["batch_size"]
            computed, count = threads_plan([desc.config.get("num_threads"), *(kwarg(c, "num_threads") for c in calls)])
            if computed or "num_threads" in names:
                core.append("num_threads")
            elif count > 1:
                self.module_threads = max(self.module_threads, count)
                self.module_thread_pipelines.append(name)
            if "device_id" in names or takes_device(desc.config) or any(
                    takes_device({"device_id": kwarg(c, "device_id")}) for c in calls):
                core.append("device_id")  # the generator runs on that GPU (device_of)
            seeds = [kwarg(c, "seed") for c in calls if kwarg(c, "seed") is not None]
            if takes_seed(desc, names, outside_seeding, self.d.rng_mode, seeds):
                core.append("seed")
            desc.extra["core"] = tuple(o for o in CORE if o in core)


class _PipelineUses(cst.CSTVisitor):
    """Each plain call of the named pipeline functions, and the names used any other way (passed, stored)."""

    def __init__(self, names: set[str]):
        super().__init__()
        self.names = names
        self.calls: dict[str, list[cst.Call]] = {}
        self.escapes: set[str] = set()
        self._seen: set[int] = set()  # ids of Names that are a call's callee or a definition's name

    def visit_Call(self, node):
        if isinstance(node.func, cst.Name) and node.func.value in self.names:
            self.calls.setdefault(node.func.value, []).append(node)
            self._seen.add(id(node.func))

    def visit_FunctionDef(self, node):
        self._seen.add(id(node.name))

    def visit_Name(self, node):
        if node.value in self.names and id(node) not in self._seen:
            self.escapes.add(node.value)


def _random_ops_site(origin: str) -> bool:
    """The operator site is a random ops object (``ops.random.CoinFlip(...)`` made outside the definitions)."""
    operator = df.site_operator(origin)
    return operator.startswith("ops.") and bool((ops_fn_entry(operator[4:])[1] or {}).get("random"))


def _draws(function, imports) -> bool:
    """The function calls a random fn op (at any depth of its body)."""
    found = _RandomCalls(imports)
    walk(function, found)
    return found.any


class _RandomCalls(cst.CSTVisitor):
    def __init__(self, imports):
        super().__init__()
        self.imports, self.any = imports, False

    def visit_Call(self, node):
        path = fn_path(self.imports, node.func)
        if path is not None and (optable.resolve_fn(path)[1] or path) in RNG_OPS:
            self.any = True


def _imported_desc(local: str, pipeline) -> PipelineDesc:
    """A stand-in description of a pipeline defined in another module of the project: enough for the
    consumers here (style, parameters, batch size, checkpointing); its readers are not known here."""
    config = {"batch_size": expr(pipeline.batch_size)} if pipeline.batch_size else {}
    desc = PipelineDesc(name=local, style=pipeline.style, node=None, config=config, params=list(pipeline.params))
    desc.extra.update(imported=pipeline.qualname, checkpoint=pipeline.checkpoint)
    return desc


def _is_return(statement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and \
        isinstance(statement.body[0], cst.Return)


def _no_hidden_names(node: cst.FunctionDef, params: list[str], config: dict) -> None:
    """The generator takes the pipeline's options as parameters (batch_size=, num_threads=, device_id=, seed=): a
    body that reads one of those names from around it (``shuffle_after_epoch_seed=seed``, ``seed`` a parameter of the
    enclosing function) would read the option instead. Unless the option's value is that very name
    (``@pipeline_def(batch_size=batch_size)``), the pipeline stays."""
    reads, bound = NameReads(), AssignedNames()
    walk(node.body, reads)
    walk(node.body, bound)
    for name in sorted(reads.names & set(CORE) - set(params) - bound.names):
        given = config.get(name)
        if isinstance(given, cst.Name) and given.value == name:
            continue
        raise CannotUnroll(f"its body reads {name} from the code around it, which the migrated generator's {name}= "
                           f"parameter (the pipeline option) would hide", node)
