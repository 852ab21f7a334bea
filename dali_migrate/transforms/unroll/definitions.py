"""Where a pipeline is defined: what the unroll writes in its place (``DefinitionRewrites``).

A ``@pipeline_def`` becomes a generator (``leave_FunctionDef``): its parameters gain the options it takes
(``signature.py``), its body the thread pool, the seed and the steps (``generator_code.py``), decorated with
``@Prefetch`` where it loads ahead (``prefetch.py``), run under ``ndd.Device`` where it was given a GPU
(``device_of``), and written as a function returning a ``ReaderStream`` where its readers' metadata or its epochs
are asked for (``stream_body``, ``stream.py``). A Pipeline subclass goes to ``class_writing.emit_class`` and
``pipe = Pipeline(...)`` with ``with pipe:`` to ``withstyle.py``, when the block that holds it is left. The options
with no dynamic-mode counterpart are reported (``_report_config``).
"""

from __future__ import annotations

import libcst as cst

from ...files import module_name_of
from ...walk import transform, walk
from . import checkpoints, conditional, current, prefetch, rules, stream
from .graph import eager_sources
from .generator_code import (_uses_name, device_statement, epoch_statements, loop_statements, rng_statements_after_pre,
                             seeding_statements, takes_device, thread_statement)
from .model import (CORE, HANDLED_ELSEWHERE, AssignedNames, NameReads, PipelineDesc, ReaderSpec, code_of, expr, kwarg,
                    literal_value, with_kwarg)
from .signature import add_core_params


def _is_docstring(statement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and \
        isinstance(statement.body[0], cst.Expr) and isinstance(statement.body[0].value,
                                                               (cst.SimpleString, cst.ConcatenatedString))


def _cpu_reader(call: cst.Call) -> bool:
    """A reader created on the CPU (no ``device=``, or a literal ``"cpu"``): creating it touches no GPU."""
    device = kwarg(call, "device")
    return device is None or literal_value(device) == "cpu"


class DefinitionRewrites:
    """The ``Unroller``'s part for the definitions of pipelines (a mixin: its state is the ``Unroller``'s)."""

    # -- pipelines whose readers' metadata is asked for (stream.py) ------------------------------
    def readers_for_stream(self, desc: PipelineDesc, env) -> list[ReaderSpec]:
        """The readers, created with max_batch_size: asking for metadata before the first batch is then safe."""
        return [reader if kwarg(reader.call, "max_batch_size") is not None else ReaderSpec(**{
            **reader.__dict__, "call": with_kwarg(reader.call, "max_batch_size", expr(env.batch_size))})
            for reader in desc.readers]

    def stream_body(self, desc: PipelineDesc, env, head: list, steps: list, pre_count: int, decorators, node,
                    device: str | None = None):
        """(body, decorators) of a function that returns a ReaderStream: the statements before the readers
        and the readers, then ``steps()`` (``head`` and the loop, with the generator's decorators). With a
        ``device`` (the expression of the pipeline's device_id), the steps run on that GPU, and so does the
        creation of a reader that is not a CPU one (``device_statement``)."""
        self.need_stream = True
        epochs = bool(desc.extra.get("epochs"))
        what = ("the steps of one epoch, which ends where its external source raises StopIteration; reset() starts "
                "the next epoch's steps, as pipe.reset() did") if epochs else \
            "its steps, and epoch_size()/reader_meta()/max_batch_size answered by its reader at run time"
        self.report(rules.READER_META.id, f"{desc.name} returns a {stream.CLASS_NAME}: {what}", node)
        # the readers, and the source helpers' streams (created with the pipeline: their readers answer too), when
        # nothing else is set up before the steps
        sources = eager_sources(desc)
        count = len(desc.readers) + len(sources)
        outer, readers, inner = steps[:pre_count], steps[pre_count:pre_count + count], steps[pre_count + count:]
        if epochs:  # the seed and the thread pool are set once, as the pipeline did, not again each epoch
            outer = head + outer
        else:
            inner = head + inner
        if device is not None:
            inner = [device_statement(device, inner, self.ctx)]
            if any(not _cpu_reader(r.call) for r in desc.readers):
                readers = [device_statement(device, readers, self.ctx)]
        conditional_readers = desc.extra.get("conditional_readers", ())
        if conditional_readers:  # created under their conditions among the statements before the loop
            names = {r.var for r in conditional_readers}
            outer = [transform(s, conditional.WithMaxBatchSize(names, env.batch_size), layout=False) for s in outer]
        ahead = self.run_ahead(desc, node, self._bound_in(desc)) if epochs else "2"
        return stream.wrap(outer, readers, inner, decorators, desc.readers, env.batch_size, epochs=epochs,
                           conditional=[(r, desc.extra["reader_conditions"][r.var]) for r in conditional_readers],
                           sources=sources, ahead=ahead), []

    @staticmethod
    def _bound_in(desc: PipelineDesc) -> set[str]:
        """The names a pipeline function's parameters and body bind: they hide the module's names there."""
        bound = AssignedNames()
        for statement in desc.extra.get("statements", ()):
            walk(statement, bound)
        return bound.names | set(desc.params)

    def run_ahead(self, desc: PipelineDesc, node, shadowed=frozenset()) -> str:
        """The code of how far a DALI iterator with size= had run ``desc`` past an epoch's end, for the
        EpochIterator to run its stream as far: a number (prefetch.ahead), or, for options given by names
        (``exec_pipelined=pipelined``), ReaderStream.prefetch_depth_of(...) of them at run time. Options that
        call something, or read a name ``shadowed`` where the code goes, are marked and taken as 2."""
        found = prefetch.ahead(desc)
        if found is not None:
            return str(found)
        options = {name: desc.config[name] for name in ("prefetch_queue_depth", "exec_pipelined")
                   if name in desc.config}
        reads = NameReads()
        for value in options.values():
            walk(value, reads)
        if reads.calls or reads.names & set(shadowed):
            self.mark(rules.ITERATOR_DIFFERENCE.id, f"{desc.name}'s prefetch_queue_depth or exec_pipelined cannot "
                      f"be read again where the steps are: an iterator with size= ran its source that many steps "
                      f"past an epoch's end, which decides where the next epoch starts; the EpochIterator takes 2",
                      node)
            return str(prefetch.DEFAULT_DEPTH)
        arguments = ", ".join(f"{name}={code_of(value)}" for name, value in options.items())
        return f"{stream.CLASS_NAME}.prefetch_depth_of({arguments})"

    def _called_with_double_star(self, name: str) -> bool:
        flow = self.ctx.facts.get("flow")
        return flow is not None and any(
            isinstance(call.func, cst.Name) and call.func.value == name and any(a.star == "**" for a in call.args)
            for call, _scope in flow.calls)

    def leave_FunctionDef(self, original_node, updated_node):
        self._functions.pop()
        if original_node in self.adapted:
            updated_node = self._adapt_params(original_node, updated_node)
        key = self.d.factories.get(original_node.name.value)
        plan = self.with_checkpoint.get(key) if key and key.split(":", 1)[0] == ".".join(self._scope) else None
        if plan and plan.get("add_param"):
            params = updated_node.params
            star = params.star_arg if isinstance(params.star_arg, (cst.Param, cst.ParamStar)) else cst.ParamStar()
            updated_node = updated_node.with_changes(params=params.with_changes(
                star_arg=star, kwonly_params=[*params.kwonly_params, checkpoints.none_param(plan["param"])]))
        self._scope.pop()
        if self._is_pipeline_def(original_node):
            self._pipeline_depth -= 1
        desc = self._desc_to_emit(original_node)
        if desc is None:
            return updated_node
        self.migrated_origin(desc.name, desc.name)
        self.need_sample_split |= bool(desc.extra.get("sample_split"))
        self.report(rules.UNROLL.id, f"@pipeline_def {desc.name} -> a generator yielding one step per "
                    f"pipe.run()", original_node)
        self._report_config(desc, original_node)
        for option in sorted(desc.extra.get("current_options", ())):
            self.report(rules.UNROLL.id, f"Pipeline.current().{option} in {desc.name} -> "
                        f"{current.PARAMETERS[option]}, the generator's parameter (the value the pipeline had)",
                        original_node)
        params = add_core_params(updated_node.params, desc.config, desc.params, desc.extra.get("core", CORE))
        if self._called_with_double_star(desc.name) and not isinstance(params.star_kwarg, cst.Param):
            # pipeline mode takes its own options (prefetch_queue_depth=, exec_async=, ...) out of the call's
            # keywords; a **dict at a call site can carry them, so the generator accepts and drops them
            params = params.with_changes(star_kwarg=cst.Param(cst.Name("pipeline_options")))
            self.report(rules.PIPELINE_OPTION.id, f"{desc.name} is called with **kwargs: the Pipeline options they "
                        f"may carry are taken as **pipeline_options and dropped (dynamic mode has none)", original_node)
        if desc.extra.get("checkpoint"):
            params = params.with_changes(kwonly_params=[*params.kwonly_params, cst.Param(
                cst.Name(checkpoints.PARAM), default=cst.Name("None"),
                equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                      whitespace_after=cst.SimpleWhitespace("")))])
        env = self._env()
        body = []
        docstring = [s for s in desc.pre if _is_docstring(s)]
        pre = [s for s in desc.pre if not _is_docstring(s)]
        if "num_threads" in desc.extra.get("core", CORE) or "num_threads" in desc.params:
            body.append(thread_statement("num_threads"))
        body += seeding_statements(desc, env, desc.config.get("seed"))
        desc_copy = PipelineDesc(**{**desc.__dict__, "pre": pre})
        streamed = desc.name in self.streamed
        if streamed:
            desc_copy.readers = self.readers_for_stream(desc, env)
        desc_copy.extra = {**desc.extra, "epochs": streamed and not desc.readers and self.restarts(desc.name, desc)}
        if desc_copy.extra["epochs"]:
            once, steps = epoch_statements(desc_copy, env)
            pre = once
            steps = once + steps
        else:
            steps = loop_statements(desc_copy, env)
            pre = [*pre, *rng_statements_after_pre(desc_copy)]  # (loop_statements put them after pre)
        if desc.extra.get("checkpoint"):
            objects = checkpoints.stateful_objects(desc, self.d.rng_mode, _uses_name(desc, "rng"))
            steps[-1:-1] = checkpoints.registration(desc, objects)
        decorators = self.prefetch_decorators(desc, original_node)
        device = self.device_of(desc)
        if streamed:
            body, decorators = self.stream_body(desc_copy, env, body, steps, len(pre), decorators, original_node,
                                                device)
        elif device is not None:
            body = [device_statement(device, body + steps, self.ctx)]
        else:
            body = body + steps
        body = docstring + body
        return updated_node.with_changes(decorators=decorators, params=params,
                                         body=updated_node.body.with_changes(body=body))

    def device_of(self, desc: PipelineDesc) -> str | None:
        """The expression of the device_id under which the generator written for ``desc`` runs its steps
        (``generator_code.device_statement``), or None when it selects no device: a ``@pipeline_def`` whose generator
        takes ``device_id`` (a caller or the decorator gives one that is not None/0, or its callers are not
        all known: ``plan_params``), a ``with pipe:`` pipeline or a Pipeline subclass given one
        (``takes_device``). Not when the pipeline function has a parameter of that name itself, nor for a
        Pipeline subclass that creates a GPU reader in ``__init__`` or one imported from another module
        (its reader or its class is not written here): those stay marked (DM207)."""
        if desc.style == "def":
            if "device_id" in desc.params:
                return None
            if desc.extra.get("imported"):
                return "device_id"  # exported: its generator keeps every parameter (plan_params)
            return "device_id" if "device_id" in desc.extra.get("core", CORE) else None
        if desc.style == "with":
            return "device_id" if takes_device(desc.config) else None
        if desc.style == "class" and not desc.extra.get("imported") and takes_device(desc.config) and not any(
                r.var.startswith("self.") and not _cpu_reader(r.call) for r in desc.readers):
            return "self.device_id"
        return None

    def device_why(self, desc: PipelineDesc) -> str:
        """Why a device_id given to ``desc`` is left for a person (``device_of`` is None)."""
        if desc.style == "def" and "device_id" in desc.params:
            return (f"{desc.name} has a parameter named device_id: the generator cannot also take the pipeline's; "
                    f"rename it, or run the generator under `with ndd.Device(\"gpu\", device_id)`")
        return ("ndd runs GPU ops on the current CUDA device; run the generator under "
                "`with ndd.Device(\"gpu\", device_id)` (a GPU reader created outside it too) or pass "
                "device=ndd.Device('gpu', device_id) to the GPU ops")

    def _report_config(self, desc: PipelineDesc, node):
        config = desc.config
        if "num_threads" in config and "num_threads" in desc.extra.get("core", CORE):
            self.report(rules.NUM_THREADS.id, f"num_threads={code_of(config['num_threads'])} -> "
                        f"ndd.set_num_threads(num_threads) when the pool is smaller (grown, never shrunk)", node)
        if desc.has_random:
            how = "ndd.random.RNG objects (rng=)" if self.d.rng_mode else "ndd.random.set_seed(seed)"
            self.report(rules.RANDOM_VALUES.id, f"{desc.name}: the seed drives {how}; random values differ "
                        f"from pipeline mode for the same seed (same distributions)", node)
        device_id = config.get("device_id")
        forwarded = isinstance(device_id, cst.Name) and device_id.value in desc.params  # checked at call sites
        device = self.device_of(desc)
        if device is not None:
            given = f"device_id={code_of(device_id)}" if takes_device(config) else "the device_id its callers give"
            where = "the thread that runs them" if self._not_prefetched(desc) is None else \
                "the caller's thread, which keeps it between steps: the generator is not prefetched"
            self.report(rules.DEVICE_ID.id, f"{desc.name}: {given} -> its steps run under "
                        f"`with ndd.Device(\"gpu\", {device})` (the current CUDA device of {where}, as the "
                        f"pipeline ran on that GPU); nothing is selected when it is None", node)
        elif device_id is not None and not forwarded and literal_value(device_id) not in (None, 0):
            self.mark(rules.DEVICE_ID.id, f"device_id={code_of(device_id)}: {self.device_why(desc)}", node)
        if desc.extra.get("checkpoint"):
            checkpoints.report_enabled(self.report, desc, node)
        elif "enable_checkpointing" in config and literal_value(config["enable_checkpointing"]) is not False:
            self.mark(rules.CHECKPOINT.id, f"{desc.name}: enable_checkpointing has no pipeline-level counterpart: "
                      f"create the reader with enable_checkpointing=True and register it (and any RNG) by name "
                      f"in an ndd.checkpoint.Checkpoint before the first next_epoch" + (
                          f" (not migrated: {desc.extra['checkpoint_unmigrated']})"
                          if desc.extra.get("checkpoint_unmigrated") else ""), node)
        for option in config:
            if option not in CORE and option not in HANDLED_ELSEWHERE and not (
                    option == "checkpoint" and desc.extra.get("checkpoint")) and \
                    option != "prefetch_queue_depth":  # DM223 says what became of it
                self.report(rules.PIPELINE_OPTION.id, f"{option}={code_of(config[option])} has no "
                            f"dynamic-mode counterpart and is dropped", node)

    def _desc_to_emit(self, original_node):
        """The description to emit for this definition; None when there is none, or when the
        definition stays in pipeline mode (its pending markers are attached here)."""
        marks = self._pending_marks.get(original_node)
        if marks:
            for rule_id, message in marks:
                self.mark(rule_id, message, original_node)
            return None
        desc = self.descs.get(original_node.name.value)
        if desc is not None and desc.node is original_node:
            return desc
        return self.earlier_descs.get(original_node) if original_node.name.value not in self.keep else None

    def leave_ClassDef(self, original_node, updated_node):
        updated_node = self._iterator_subclass(original_node, updated_node)
        if self.d.classes.get(original_node.name.value) is original_node:
            self._pipeline_depth -= 1
        self._classes.pop()
        desc = self._desc_to_emit(original_node)
        if desc is None:
            return updated_node
        from .class_writing import emit_class
        self.migrated_origin(desc.name, desc.name)
        return emit_class(self, desc, original_node, updated_node)

    # -- `pipe = Pipeline(...)` + `with pipe:` -------------------------------------------------
    def leave_Module(self, original_node, updated_node):
        from .withstyle import unroll_with_blocks
        body = unroll_with_blocks(self, list(updated_node.body), module_level=True)
        return updated_node.with_changes(body=body)

    def visit_IndentedBlock(self, node):
        from .withstyle import adoptable_calls
        self._adopted_randoms |= adoptable_calls(self, node.body)
        return True

    def leave_IndentedBlock(self, original_node, updated_node):
        body = self._unroll_with_blocks(list(updated_node.body), in_loop=self._loop_depth > 0)
        if not body:
            body = [cst.SimpleStatementLine([cst.Pass()])]
        return updated_node.with_changes(body=body)

    def _unroll_with_blocks(self, body, in_loop):
        from .withstyle import unroll_with_blocks
        return unroll_with_blocks(self, body, in_loop=in_loop)

    def _stepped_once(self) -> frozenset:
        """``prefetch.stepped_once`` of this module, asked once."""
        if "stepped_once" not in self.ctx.facts:
            flow = self.ctx.facts.get("flow")
            if flow is None:
                self.ctx.facts["stepped_once"] = frozenset()
            else:  # the same for every run of the passes that shares this model (engine._migrate_units)
                if "stepped_once" not in flow.derived:
                    project = self.ctx.facts.get("project")
                    # another module of the run imports this one: it may step the pipelines of its top level
                    exported = project is not None and module_name_of(self.ctx.path) in project.imported_modules
                    flow.derived["stepped_once"] = prefetch.stepped_once(flow, flow.module, exported)
                self.ctx.facts["stepped_once"] = flow.derived["stepped_once"]
        return self.ctx.facts["stepped_once"]

    def _not_prefetched(self, desc: PipelineDesc) -> str | None:
        """Why the generator written for ``desc`` loads on demand, or None when it is prefetched."""
        why = prefetch.why_not(desc)
        if why is not None:
            return f"{why}; each step loads when next() asks for it"
        if desc.extra.get("origin", desc.name) in self._stepped_once():
            return "it is stepped a few times, never in a loop, so there is no work to load ahead of"
        return None

    def prefetch_decorators(self, desc: PipelineDesc, node) -> list[cst.Decorator]:
        """``@Prefetch(depth=N)`` for the generator written for ``desc`` (reported), or none, with the reason."""
        why = self._not_prefetched(desc)
        if why is not None:
            self.report(rules.PREFETCH.id, f"{desc.name} is not prefetched: {why}", node)
            return []
        self.need_prefetch = True
        self.report(rules.PREFETCH.id, f"{desc.name}: @Prefetch(depth={prefetch.depth(desc)}) loads the next step in "
                    f"a background thread while the caller works, as prefetch_queue_depth={prefetch.depth(desc)} "
                    f"did", node)
        return [prefetch.decorator(desc)]
