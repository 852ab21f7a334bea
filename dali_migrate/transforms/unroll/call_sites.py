"""Where a module uses its pipelines: the call sites and consumers the unroll rewrites (``CallSiteRewrites``).

``pipe.run()`` (``share_outputs``, ``outputs``) becomes ``next(pipe)``; ``build()``, ``schedule_run()``,
``release_outputs()`` and a ``reset()`` that did nothing are dropped, with a loop left with nothing to do
(``for p in pipes: p.build()``); ``pipe.checkpoint()`` and ``checkpoint=`` become an ``ndd.checkpoint.Checkpoint``
(``checkpoints.py``); a pipeline function's call drops the options its generator no longer takes
(``_fix_call_site``); the PyTorch, TensorFlow and JAX iterators (``consumers.py``, ``frameworks.py``) and the
iterator subclasses (``iterator_subclass.py``) go over the migrated pipelines; a function given pipelines from
elsewhere adapts them (``adapted.py``). What has no dynamic-mode counterpart (``UNSUPPORTED_METHODS``) is marked.
"""

from __future__ import annotations

import libcst as cst

from ... import dataflow as df
from ...names import dotted
from ...walk import walk
from ..base import name_nodes_in
from . import adapted, checkpoints, epoch_iterator, frameworks, iterator_subclass, per_sample, prefetch, rules, stream
from .model import CORE, PIPELINE_POSITIONAL, PipelineDesc, code_of, expr, kwarg, literal_value, stmt, without_kwargs
from .discovery import OTHER_ITERATOR_PREFIXES, TORCH_ITERATORS

UNSUPPORTED_METHODS = {
    "serialize": "pipe.serialize() has no dynamic-mode counterpart: there is no graph to serialize",
    "deserialize": "Pipeline.deserialize has no dynamic-mode counterpart: rebuild the ndd code instead",
    "feed_input": "feed_input has no dynamic-mode counterpart: pass the data straight to the ndd ops",
    "schedule_run": "schedule_run has no dynamic-mode counterpart: each next(pipe) runs one step",
    "share_outputs": "share_outputs has no dynamic-mode counterpart: each next(pipe) runs one step",
    "release_outputs": "release_outputs has no dynamic-mode counterpart",
    "outputs": "pipe.outputs() has no dynamic-mode counterpart: use next(pipe)",
}
RESET_RESTARTS = ("pipe.reset() restarts an external source that ended (StopIteration); the migrated generator does "
                  "not restart: create the pipeline again for the next epoch")
CHECKPOINT_STYLES = ("def", "class")  # whose consumers pass a checkpoint= to the pipeline's constructor


def _bound_names(target, name: str, bound: set[int]) -> None:
    """Add to ``bound`` the ids of the names in an assignment or loop target that bind ``name``."""
    if isinstance(target, cst.Name) and target.value == name:
        bound.add(id(target))
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            _bound_names(element.value, name, bound)
    elif isinstance(target, cst.StarredElement):
        _bound_names(target.value, name, bound)


class _LoopsBinding(cst.CSTVisitor):
    """The state of ``_loops_binding``: a class of the module, not of the call (a class or a recursive closure
    made per call is a reference cycle, which would keep the tree alive until the collector runs)."""

    def __init__(self, node, name: str):
        self.node, self.name = node, name
        self.loops: list[cst.For] = []
        self.bound: set[int] = set()

    def visit_For(self, loop):
        targets: set[int] = set()
        _bound_names(loop.target, self.name, targets)
        self.bound |= targets
        if targets:  # `for p in ...` or `for i, p in enumerate(...)`: reads in its body see its item
            self.loops.append(loop)

    def visit_Assign(self, assign):
        for target in assign.targets:
            _bound_names(target.target, self.name, self.bound)

    def visit_AnnAssign(self, assign):
        _bound_names(assign.target, self.name, self.bound)

    def visit_FunctionDef(self, inner):
        return inner is self.node

    def visit_ClassDef(self, inner):
        return inner is self.node

    def visit_Lambda(self, inner):
        return False


def _loops_binding(node, name: str) -> tuple[list[cst.For], set[int]]:
    """The ``for name in ...`` loops in ``node`` (not in nested functions, classes or lambdas), and the ids of the
    names there that bind ``name`` (assignment and loop targets: not reads)."""
    found = _LoopsBinding(node, name)
    walk(node, found)
    return found.loops, found.bound


def _emptied_loop(original: cst.For, updated: cst.For) -> bool:
    """A loop over a name (or attribute) whose every statement the migration dropped: only a ``pass`` is left."""
    def only_pass(block):
        return isinstance(block, cst.IndentedBlock) and all(
            isinstance(line, cst.SimpleStatementLine) and all(isinstance(s, cst.Pass) for s in line.body)
            for line in block.body)

    return (updated.orelse is None and original.asynchronous is None and isinstance(original.target, cst.Name)
            and isinstance(original.iter, (cst.Name, cst.Attribute)) and only_pass(updated.body)
            and not only_pass(original.body))


def _only_loops(comprehension: cst.ListComp) -> bool:
    """A comprehension that only runs its element: one ``for`` over a name or attribute, no condition (so
    dropping it drops nothing but the element's calls)."""
    loop = comprehension.for_in
    return loop.inner_for_in is None and not loop.ifs and loop.asynchronous is None \
        and isinstance(loop.iter, (cst.Name, cst.Attribute)) and isinstance(loop.target, cst.Name)


class CallSiteRewrites:
    """The ``Unroller``'s part for the uses of pipelines (a mixin: its state is the ``Unroller``'s)."""

    def _gets_pipelines(self, call: cst.Call) -> bool:
        """A pipeline of this module is among ``call``'s arguments, as far as the flow model sees."""
        flow = self.ctx.facts.get("flow")
        return flow is not None and any(flow.pipelines_in(a.value) for a in call.args)

    def find_iterator_subclasses(self, module: cst.Module) -> None:
        """The module's subclasses of the PyTorch iterators, and whether each can derive from the EpochIterator
        (iterator_subclass.py; the pipelines must be known to stream, so after ``_prepare``)."""
        self.iterator_subclasses = iterator_subclass.find(module, self.ctx.imports, self.streams, self.untraced,
                                                           self.ctx.may_mention)

    def _iterator_subclass(self, node: cst.ClassDef, updated_node: cst.ClassDef) -> cst.ClassDef:
        found = getattr(self, "iterator_subclasses", {}).get(node.name.value)
        if found is None or found.node is not node:
            return updated_node
        if found.problem is not None:
            self.mark(rules.CANNOT_UNROLL.id, f"{found.name}({found.which}) stays in pipeline mode with its "
                      f"pipelines: {found.problem}", node)
            return updated_node
        bases = [b.with_changes(value=cst.Name(epoch_iterator.CLASS_NAME))
                 if self.ctx.imports.qualname(o.value) == found.base else b
                 for b, o in zip(updated_node.bases, node.bases)]
        self.need_epoch_iterator = True
        self.report(rules.TORCH_ITERATOR.id, f"class {found.name}({found.which}) derives from "
                    f"{epoch_iterator.CLASS_NAME}, which has what it uses (super().__next__(), output_map, ...); its "
                    f"construction sites get the {epoch_iterator.CLASS_NAME}'s arguments", node)
        if found.run_time:
            where = ("it is constructed elsewhere" if not found.sites
                     else "it is given pipelines the tool cannot trace")
            self.report(rules.ITERATOR_KIND_AT_RUN_TIME.id, f"class {found.name}({found.which}): {where}, so its "
                        f"base {epoch_iterator.CLASS_NAME} decides at run time: over pipeline-mode Pipelines it is the "
                        f"plugin's iterator, over migrated ones (ReaderStream) it counts as the plugin does", node)
        if found.adds_init:  # its construction sites keep DALIClassificationIterator's arguments
            output_map = repr(found.fixed_map).replace("'", '"')
            init = stmt(f"def __init__(self, pipelines, *args, **kwargs):  # {found.which}'s arguments\n"
                        f"    super().__init__(pipelines, {output_map}, *args, **kwargs)\n")
            body = list(updated_node.body.body)
            at = 1 if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr) \
                and isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)) else 0
            if at < len(body):
                body[at] = body[at].with_changes(leading_lines=[cst.EmptyLine(indent=False), *body[at].leading_lines]) \
                    if at else body[at]
            body.insert(at, init.with_changes(leading_lines=[cst.EmptyLine(indent=False)] if at else []))
            if at == 0 and len(body) > 1:
                body[1] = body[1].with_changes(leading_lines=[cst.EmptyLine(indent=False)])
            updated_node = updated_node.with_changes(body=updated_node.body.with_changes(body=body))
            self.report(rules.TORCH_ITERATOR.id, f"class {found.name} gets an __init__ that puts {found.which}'s output "
                        f"map after the pipelines, so it is constructed with the plugin's arguments wherever it is", node)
        return updated_node.with_changes(bases=bases)

    # loops: a `with pipe:` inside one binds the values its names have now (see withstyle)
    _loop_depth = 0

    def visit_For(self, node):
        self._loop_depth += 1

    def leave_For(self, original_node, updated_node):
        self._loop_depth -= 1
        if _emptied_loop(original_node, updated_node) and self._loop_of_nothing(original_node):
            return cst.RemoveFromParent()  # `for p in pipes: p.build()`: nothing is left to do for each
        return updated_node

    def _loop_of_nothing(self, loop: cst.For) -> bool:
        """Removing the loop changes nothing else: it goes over a list (the model says so; a generator would be
        consumed), and its variable is read nowhere outside it (after the loop it held the last item)."""
        flow = self.ctx.facts.get("flow")
        if flow is None:
            return False
        kind = flow.value_of(loop.iter)[0]
        if not (isinstance(kind, tuple) and kind[0] == "seq"):
            return False
        scope = flow.name_scope.get(loop.target)
        if scope is None:
            return False
        # Reads in the body of a loop that binds the same name (this one, or another `for p in ...`) see that loop's
        # item, not what this loop left.
        loops, bound = _loops_binding(scope.node, loop.target.value)
        inside = {id(n) for other in loops for n in name_nodes_in(other.body)} | bound
        return not any(
            node.value == loop.target.value and found is scope and id(node) not in inside
            for node, found in flow.name_scope.items())

    def visit_While(self, node):
        self._loop_depth += 1

    def leave_While(self, original_node, updated_node):
        self._loop_depth -= 1
        return updated_node

    # -- consumers -----------------------------------------------------------------------------
    @property
    def _prepend(self) -> list:
        return self.__dict__.setdefault("_prepend_list", [])

    def _checkpoint_owner(self, owner: str) -> bool:
        """``owner`` holds a checkpointed @pipeline_def generator whose assignment gets a checkpoint object."""
        found = self.pipe_var(owner)
        if found is not None and found[0] == "with":
            plan = self.with_checkpoint.get(self._with_key(owner))
            return bool(plan and "reason" not in plan)
        if found is None or found[0] != "call":
            return False
        if found[1] in self.checkpoint_factories:
            return True
        desc = self.descs.get(found[1])
        return bool(desc is not None and desc.style in CHECKPOINT_STYLES and desc.extra.get("checkpoint"))

    def _checkpoint_param(self, func: str):
        """(parameter carrying the checkpoint, the callee's positional parameters) for a call of ``func``
        that takes a migrated checkpoint, else (None, [])."""
        if func in self.checkpoint_factories:
            key = self.d.factories[func]
            return self.checkpoint_factories[func], self.d.function_params.get(key.split(":", 1)[0], [])
        desc = self.descs.get(func)
        if desc is None or desc.style not in CHECKPOINT_STYLES or not desc.extra.get("checkpoint"):
            return None, []
        return desc.extra.get("checkpoint_param", checkpoints.PARAM), desc.params

    def _checkpointed_assign(self, statement):
        """``(owner, call)`` when ``statement`` is ``owner = checkpointed_pipeline(...)`` needing a checkpoint."""
        if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
                and isinstance(statement.body[0], cst.Assign) and len(statement.body[0].targets) == 1
                and isinstance(statement.body[0].value, cst.Call)):
            return None
        target = statement.body[0].targets[0].target
        owner = dotted(target) if isinstance(target, (cst.Name, cst.Attribute)) else None
        call = statement.body[0].value
        if owner is None or not isinstance(call.func, cst.Name):
            return None
        param, params = self._checkpoint_param(call.func.value)
        if param is None:
            return None
        if param in params and sum(1 for a in call.args if a.keyword is None) > params.index(param):
            return None  # passed by position: marked at the call
        if any(a.star for a in call.args):
            return None
        saved = kwarg(call, param)
        if saved is not None and not isinstance(saved, (cst.Name, cst.Attribute)) and literal_value(saved) is not None:
            return None  # evaluated twice otherwise: marked at the call
        if saved is None and kwarg(call, "enable_checkpointing") is None and "checkpoint" not in self.var_methods(owner):
            return None
        return owner, call

    def leave_SimpleStatementLine(self, original_node, updated_node):
        found = self._checkpointed_assign(original_node)
        if found is not None:
            owner, call = found
            param = self._checkpoint_param(call.func.value)[0]
            return cst.FlattenSentinel(checkpoints.consumer_statements(self, original_node, updated_node, owner,
                                                                       kwarg(call, param), param))
        if self._prepend:
            prepend, self._prepend[:] = list(self._prepend), []
            prepend[0] = prepend[0].with_changes(leading_lines=updated_node.leading_lines)
            return cst.FlattenSentinel([*prepend, updated_node.with_changes(leading_lines=[])])
        # `pipe.build()` statements are dropped, also several on one line (`p.build(); q.build()`).
        kept = [small for small in updated_node.body if not self._drops_build(small, original_node)]
        if len(kept) == len(updated_node.body):
            return updated_node
        if not kept:
            return cst.RemoveFromParent()
        kept[-1] = kept[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
        return updated_node.with_changes(body=kept)

    def _drops_build(self, small, statement) -> bool:
        if not isinstance(small, cst.Expr):
            return False
        call = small.value
        if isinstance(call, cst.ListComp) and _only_loops(call):
            call = call.elt  # `[p.build() for p in pipes]`: a loop of builds, kept for nothing but them
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and not call.args):
            return False
        owner = dotted(call.func.value) if isinstance(call.func.value, (cst.Name, cst.Attribute)) else None
        method = call.func.attr.value
        if method in ("build", "schedule_run", "release_outputs", "_prefetch") and self._pipe_kind_of(call.func.value, owner) \
                or method == "build" and self._mixed_styles(call.func.value) \
                or method == "reset" and self._reset_does_nothing(call.func.value, owner):
            what = code_of(call.func.value)
            why = {"build": "the generator needs no build",
                   "reset": "its pipeline has no external_source, so nothing ends and reset() did nothing",
                   "schedule_run": f"next({what}) runs the step when its outputs are taken",
                   "_prefetch": f"next({what}) runs the step when its outputs are taken",
                   "release_outputs": "the step's outputs are plain values, released when unused"}[method]
            self.report(rules.BUILD_RUN.id, f"{what}.{method}() is dropped: {why}", statement)
            return True
        return False

    def _handed_to_wrapper(self, call: cst.Call) -> None:
        """Pipelines handed to another module's iterator wrapper (``DataFlow.wrapper_inputs``) migrate: the wrapper's
        EpochIterator asks them for their batch size and readers at run time, so each must be a ReaderStream."""
        flow = self.ctx.facts.get("flow")
        for arg in flow.wrapper_inputs(call) if flow is not None else ():
            origins = flow.pipelines_in(arg.value)
            if not origins or origins & self.ctx.kept:
                continue
            if self.streams(arg.value):
                self.report(rules.ITERATOR_KIND_AT_RUN_TIME.id, f"{code_of(arg.value)} goes to "
                            f"{code_of(call.func)}, whose iterator decides at run time: the migrated pipeline "
                            f"({stream.CLASS_NAME}) answers its batch size and readers there", call)
            else:
                self.mark(rules.CANNOT_UNROLL.id, f"{code_of(arg.value)} is handed to {code_of(call.func)}, whose "
                          f"iterator asks its pipelines for their batch size and readers, and the tool does not write "
                          f"this pipeline as a {stream.CLASS_NAME} (it has no reader, or it checkpoints)", call)

    def _reset_does_nothing(self, node, owner) -> bool:
        """Pipeline.reset() only acts after an external_source ended the data (DALI 2.4.0: it checks
        ``_last_iter``); a migrated pipeline without one never ends, so its reset() is a no-op
        (docs/dali-facts.md)."""
        kind = self._pipe_kind_of(node, owner)
        desc = self.desc_of(kind[1]) if kind is not None else None
        return desc is not None and desc.extra.get("external_sources") == 0 and not desc.extra.get("epochs")

    def desc_of(self, origin: str):
        """The pipeline a name or a flow origin stands for: ``descs`` holds a `with pipe:` pipeline under its
        variable's name, the flow model under ``"<function>:pipe"`` (a factory method's ``pipe``, say)."""
        return self.descs.get(origin) or next(
            (d for d in self.descs.values() if d.extra.get("origin") == origin), None)

    def epochs_end(self, node) -> bool:
        """Every pipeline ``node`` holds (one, or a list) is written as a ReaderStream whose steps end where its
        external source ends the epoch and restart on reset() (stream.py)."""
        flow = self.ctx.facts.get("flow")
        origins = flow.pipelines_in(node) if flow is not None and node is not None else frozenset()
        if not origins or origins & self.ctx.kept:
            return False
        for origin in origins:
            desc = self.desc_of(origin)
            if desc is None or not (desc.extra.get("epochs") or desc.style == "def" and origin in self.streamed
                                    and self.restarts(origin, desc)):
                return False
        return True

    def _reset_restarts(self, node, owner) -> bool:
        """``node`` is a pipeline written as a ReaderStream that restarts its steps on reset() (stream.py), so
        its reset() stays and does what pipe.reset() did."""
        kind = self._pipe_kind_of(node, owner)
        if kind is not None and df.is_adapted(kind[1]) and kind[1] not in self.ctx.kept:
            # given from elsewhere: an nvidia.dali Pipeline's reset() through ReaderStream.adapt, or a pipeline of
            # this module, whose reset() does nothing or restarts its steps as pipe.reset() did
            return all(desc.extra.get("external_sources") == 0 or self._restarts_on_reset(desc)
                       for desc in self.descs.values())
        desc = self.desc_of(kind[1]) if kind is not None else None
        if desc is None or kind[1] in self.ctx.kept:
            return False
        return self._restarts_on_reset(desc)

    def _restarts_on_reset(self, desc) -> bool:
        if desc.style == "def":
            return desc.name in self.streamed and self.restarts(desc.name, desc)
        return bool(desc.extra.get("epochs"))

    def leave_Call(self, original_node, updated_node):
        func = original_node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "reset" and not original_node.args:
            flow = self.ctx.facts.get("flow")
            owner = dotted(func.value) if isinstance(func.value, (cst.Name, cst.Attribute)) else None
            pipeline = self._pipe_kind_of(func.value, owner) is not None or flow is not None and \
                flow.value_of(func.value)[0] == df.PIPELINE and not flow.value_of(func.value)[1] & self.ctx.kept
            if pipeline and not self._reset_does_nothing(func.value, owner) and not self._reset_restarts(func.value, owner):
                self.mark(rules.UNSUPPORTED_API.id, RESET_RESTARTS, original_node)
        if self._pipeline_depth == 0:
            updated_node = self._random_outside(original_node, updated_node)
        self._handed_to_wrapper(original_node)
        func = updated_node.func
        qualname = self.ctx.imports.qualname(original_node.func)
        if qualname in TORCH_ITERATORS:
            from .consumers import rewrite_torch_iterator
            return rewrite_torch_iterator(self, original_node, updated_node, TORCH_ITERATORS[qualname])
        if qualname in frameworks.TF_DATASETS:
            return frameworks.rewrite_tf_dataset(self, original_node, updated_node)
        if qualname in frameworks.JAX_ITERATORS:
            return frameworks.rewrite_jax_iterator(self, original_node, updated_node)
        if qualname == frameworks.TF_ITERATOR_OP:
            return frameworks.rewrite_tf_iterator(self, original_node, updated_node)
        for subclass in getattr(self, "iterator_subclasses", {}).values():
            if subclass.problem is None and any(original_node is c for c in subclass.super_inits):
                from .consumers import rewrite_super_init
                return rewrite_super_init(self, subclass, original_node, updated_node)
            if subclass.problem is None and original_node is subclass.verbatim_init:
                from .consumers import keep_super_init
                return keep_super_init(self, subclass, original_node, updated_node)
            if subclass.problem is not None and original_node in subclass.init_calls and self._gets_pipelines(
                    original_node):  # pipelines the class builds itself stay in pipeline mode with it (their unit)
                self.mark(rules.CANNOT_UNROLL.id, f"{code_of(original_node.func)}(...) not migrated: {subclass.name} "
                          f"derives from {subclass.which} and stays in pipeline mode: {subclass.problem}", original_node)
                return updated_node
        subclass = getattr(self, "iterator_subclasses", {}).get(func.value) if isinstance(func, cst.Name) else None
        if subclass is not None and original_node in subclass.sites:
            if subclass.problem is not None:  # its pipelines stay in pipeline mode with it (their unit is kept)
                self.mark(rules.CANNOT_UNROLL.id, f"{func.value}(...) not migrated: {func.value} derives from "
                          f"{subclass.which} and stays in pipeline mode: {subclass.problem}", original_node)
                return updated_node
            if subclass.super_inits or subclass.verbatim_init is not None or subclass.adds_init:  # its __init__ does
                return updated_node
            from .consumers import rewrite_torch_iterator
            return rewrite_torch_iterator(self, original_node, updated_node, subclass.fixed_map, subclass.name)
        if qualname and qualname.startswith(OTHER_ITERATOR_PREFIXES):
            self.mark(rules.OTHER_FRAMEWORK.id, frameworks.why_not(qualname), original_node)
            return updated_node
        if isinstance(func, cst.Name) and func.value in self.checkpoint_factories and func.value not in self.descs:
            param = self.checkpoint_factories[func.value]
            statement = self.current_statement()
            found = self._checkpointed_assign(statement)
            handled = found is not None and found[1] is original_node
            if kwarg(updated_node, param) is not None and not handled:
                self.mark(rules.CHECKPOINT.id, f"{param}= is not migrated here: {func.value}({param}=...) now takes "
                          f"an ndd.checkpoint.Checkpoint (create one, deserialize() the saved ndd state into it, pass "
                          f"it); pipeline checkpoints do not load there", original_node)
            return updated_node
        if isinstance(func, cst.Name) and func.value in self.descs and self.descs[func.value].style == "def":
            return self._fix_call_site(original_node, updated_node, self.descs[func.value])
        if isinstance(func, cst.Name) and func.value in self.descs and self.descs[func.value].style == "class":
            return self._fix_call_site(original_node, updated_node, self.descs[func.value])
        if isinstance(func, cst.Attribute):
            owner = dotted(func.value) if isinstance(func.value, (cst.Name, cst.Attribute)) else None
            method = func.attr.value
            kind = self._pipe_kind_of(original_node.func.value, owner)
            if kind is None and self._mixed_styles(original_node.func.value):
                return self._mixed_method(original_node, updated_node, owner or code_of(original_node.func.value))
            if kind is not None:
                owner = owner or code_of(original_node.func.value)
                if method in ("run", "share_outputs", "outputs") and not updated_node.args:
                    self.report(rules.BUILD_RUN.id, f"{owner}.{method}() -> next({owner})", original_node)
                    return cst.Call(func=cst.Name("next"), args=[cst.Arg(func.value)])
                if method in ("epoch_size", "reader_meta"):
                    from .consumers import rewrite_reader_meta
                    return rewrite_reader_meta(self, original_node, updated_node, owner, kind)
                if method == "checkpoint" and not updated_node.args and self._checkpoint_owner(owner):
                    self._prepend.append(stmt(f"{checkpoints.checkpoint_var(owner)}.collect()\n"))
                    self.report(rules.CHECKPOINT_MIGRATED.id, f"{owner}.checkpoint() -> "
                                f"{checkpoints.checkpoint_var(owner)}.collect() + .serialize()", original_node)
                    return expr(f"{checkpoints.checkpoint_var(owner)}.serialize()")
                if method == "checkpoint":
                    self.mark(rules.CHECKPOINT.id, f"{owner}.checkpoint(): dynamic mode checkpoints readers and RNGs "
                              f"through ndd.checkpoint.Checkpoint (collect/save); pipeline checkpoints do not load "
                              f"there", original_node)
                    return updated_node
                if method in ("schedule_run", "release_outputs", "_prefetch") and not updated_node.args:
                    return updated_node  # the statement is dropped (leave_SimpleStatementLine)
                if method in UNSUPPORTED_METHODS:
                    self.mark(rules.UNSUPPORTED_API.id, UNSUPPORTED_METHODS[method], original_node)
                    return updated_node
            if method in ("serialize", "feed_input", "schedule_run", "share_outputs") and owner \
                    and (self.pipe_var(owner) is not None or owner == "self") and not self._fed_by_iter_setup(original_node):
                self.mark(rules.UNSUPPORTED_API.id, UNSUPPORTED_METHODS[method], original_node)
            if qualname == "nvidia.dali.Pipeline.deserialize":
                self.mark(rules.UNSUPPORTED_API.id, UNSUPPORTED_METHODS["deserialize"], original_node)
        return updated_node

    def _adapt_params(self, original: cst.FunctionDef, function: cst.FunctionDef) -> cst.FunctionDef:
        """``x = ReaderStream.adapt(x)`` first (after the docstring) for each parameter given pipelines from elsewhere."""
        params = [(param, origin) for param, origin in self.adapted[original] if origin not in self.ctx.kept]
        if not params or not isinstance(function.body, cst.IndentedBlock):
            return function
        body = list(function.body.body)
        at = 1 if body and original.get_docstring() is not None else 0
        body[at:at] = [adapted.adapt_statement(param, stream.CLASS_NAME) for param, _ in params]
        self.need_stream = True
        names = ", ".join(param for param, _ in params)
        self.report(rules.ADAPTED_AT_RUN_TIME.id, f"{original.name.value}({names}): given from elsewhere, adapted when "
                    f"called: migrated pipelines stay, nvidia.dali Pipelines run through {stream.CLASS_NAME}.adapt",
                    original)
        return function.with_changes(body=function.body.with_changes(body=body))

    def _mixed_method(self, original: cst.Call, call: cst.Call, owner: str) -> cst.CSTNode:
        """A method call on pipelines migrated in different ways (``_mixed_styles``): run() -> next(), build() dropped
        (leave_SimpleStatementLine); anything else is marked, which keeps those pipelines in pipeline mode."""
        method = call.func.attr.value
        if method in ("run", "share_outputs", "outputs") and not call.args:
            self.report(rules.BUILD_RUN.id, f"{owner}.{method}() -> next({owner}) (every pipeline it can be gives its "
                        f"steps by next())", original)
            return cst.Call(func=cst.Name("next"), args=[cst.Arg(call.func.value)])
        origins = self._unrolled_styles(original.func.value)[1]
        if method in ("epoch_size", "reader_meta") and self._all_reader_streams(origins):
            self.report(rules.BUILD_RUN.id, f"{owner}.{method}() stays: every pipeline it can be is a ReaderStream, "
                        f"which answers it at run time", original)
            return call
        if method != "build" or call.args:
            names = ", ".join(sorted(origins))
            self.mark(rules.CANNOT_UNROLL.id, f"{owner}.{method}(...) not migrated: {owner} may be any of {names}, "
                      f"which migrate to different kinds of value", original)
        return call

    def _all_reader_streams(self, origins) -> bool:
        """Every pipeline in ``origins`` is written as a ReaderStream: a Pipeline subclass (it derives from one), or a
        @pipeline_def / `with pipe:` pipeline whose metadata the program asks for (``streamed``)."""
        for origin in origins:
            desc = self.descs.get(origin)
            if desc is None or not (desc.style == "class" or origin in self.streamed
                                    or desc.extra.get("origin") in self.streamed):
                return False
        return bool(origins)

    def _fed_by_iter_setup(self, call: cst.Call) -> bool:
        """A ``self.feed_input(...)`` of a migrated class's iter_setup(), which the class rewrites (class_sources.py)."""
        return any(statement.body[0].value is call for desc in self.descs.values()
                   for statement in desc.extra.get("feeds", ()))

    def _fix_call_site(self, original, call: cst.Call, desc: PipelineDesc) -> cst.Call:
        dropped = [a.keyword.value for a in call.args
                   if a.keyword is not None and a.keyword.value in PIPELINE_POSITIONAL + (
                       "exec_dynamic", "enable_memory_stats", "output_dtype", "output_ndim", "py_callback_pickler",
                       "prefetch_queue_depth", "enable_conditionals") and a.keyword.value not in CORE]
        for option in dropped:
            if option == "enable_conditionals":
                self.report(rules.CONDITIONALS_SPLIT.id, f"enable_conditionals= is dropped here: {desc.name}'s per-sample "
                            f"ifs are written out in its steps ({per_sample.CLASS_NAME})", original)
                continue
            if option == "prefetch_queue_depth" and not desc.extra.get("imported") and self._not_prefetched(desc) is None:
                self.report(rules.PIPELINE_OPTION.id, f"prefetch_queue_depth= is dropped here: {desc.name} loads "
                            f"ahead with its definition's depth ({prefetch.depth(desc)})", original)
                continue
            self.report(rules.PIPELINE_OPTION.id, f"{option}= has no dynamic-mode counterpart and is dropped",
                        original)
        if dropped:
            call = without_kwargs(call, set(dropped))
        statement = self.current_statement()
        handled = desc.extra.get("checkpoint") and self._checkpointed_assign(statement) is not None \
            and statement.body[0].value is original
        param = desc.extra.get("checkpoint_param", checkpoints.PARAM)
        passed = [o for o in dict.fromkeys((param, "enable_checkpointing")) if kwarg(call, o) is not None]
        if not handled and desc.extra.get("checkpoint") and param in desc.params and not passed \
                and sum(1 for a in call.args if a.keyword is None) > desc.params.index(param):
            passed = [param]  # by position
        for option in passed:
            if not handled:
                if desc.extra.get("checkpoint"):
                    self.mark(rules.CHECKPOINT.id, f"{option}= is not migrated here: {desc.name}({param}=...) now "
                              f"takes an ndd.checkpoint.Checkpoint (create one, deserialize() the saved ndd state into "
                              f"it, pass it); pipeline checkpoints do not load there", original)
                else:
                    self.mark(rules.CHECKPOINT.id, f"{option}= is not migrated: restore reader/RNG state with "
                              f"ndd.checkpoint.Checkpoint().load(...) and register(reader, name) before the first "
                              f"next_epoch", original)
        device_id = kwarg(call, "device_id")
        if device_id is not None and literal_value(device_id) not in (None, 0) and self.device_of(desc) is None \
                and "device_id" not in desc.params:  # (a parameter of that name takes it: pipeline_def gives it there)
            self.mark(rules.DEVICE_ID.id, f"device_id={code_of(device_id)}: {self.device_why(desc)}", original)
        core = desc.extra.get("core")
        unused = [o for o in CORE if core is not None and o not in core and o not in desc.params
                  and kwarg(call, o) is not None]
        for option in unused:
            why = {"num_threads": "the thread pool is grown once for the module, to the largest num_threads",
                   "device_id": "ndd runs on the current device",
                   "seed": f"{desc.name} draws no random numbers and shuffles no reader"}[option]
            self.report(rules.PIPELINE_OPTION.id, f"{option}={code_of(kwarg(call, option))} is dropped: {why}",
                        original)
        if unused:
            call = without_kwargs(call, set(unused))
        return call
