"""Writing a migrated Pipeline subclass (``emit_class``) from its description (``class_description``): its bases
with ``ReaderStream`` for ``Pipeline`` (``stream_bases``); ``__init__`` with the pipeline options as attributes,
each reader ops object as the ndd reader created there once and listed in ``self._readers``, each other ops
object as a lambda or a chain (``ops.Compose``) of ndd calls; the other methods' calls of ops objects as ndd calls;
iter_setup()'s feeds; and define_graph as the ``steps()`` generator."""

from __future__ import annotations

import libcst as cst

from ...source import parse_statement
from ...walk import transform, walk
from ... import optable
from ...dataflow import STREAM_CLASS
from . import checkpoints, constants, prefetch, rules, stream
from .class_common import (OPTIONS_METHOD, STEPS_METHOD, _STEP_OPTIONS, _InitRewrite, _SelfAttributes, _methods,
                           _normalise_commas, _self_attr)
from .class_ops_objects import COMPOSE_PATH, NON_READER_DROPPED, _GraphCalls, _OpsObject, _reader_makers
from .class_reader_methods import _helper_taking_outputs
from .class_renames import _rename_graph_helpers
from .class_sources import ITER_SETUP, _SourceEnds, _source_branch_statements
from .generator_code import _uses_name, device_statement, loop_statements, seeding_statements, thread_statement
from .graph import eager_sources
from .step_calls import Env
from .model import (PIPELINE_CLS, AssignedNames, NameReads, PipelineDesc, code_of, expr, kwarg, stmt, with_kwarg,
                    without_kwargs, ndd_attr, literal_value, ops_object_callable, ops_path)

# A class fed by iter_setup(): reset() after its steps ended starts them again (ReaderStream.reset).
RESTART = ("def _restart(self, epoch):\n"
           "    \"\"\"pipe.reset() after iter_setup() ended an epoch: the next epoch's steps.\"\"\"\n"
           "    return self.steps()\n")


def _ndd_maker(unroller, method: cst.FunctionDef) -> cst.FunctionDef:
    """A method that returned an ops reader (its calls in __init__ now create the ndd reader themselves): it
    returns the ndd reader, created with the same arguments, for any other caller."""
    returned = method.body.body[-1].body[0]
    call = returned.value
    path = ops_path(unroller.ctx.imports, call.func)
    entry = optable.resolve_fn(optable.ops_class(path)["fn"])[2]
    made = without_kwargs(call, ("bytes_per_sample_hint", "preserve")).with_changes(func=ndd_attr(entry["ndd"]))
    unroller.report(rules.READER_ONCE.id, f"{method.name.value}() returned an ops reader: its calls in __init__ create "
                    f"the ndd reader there; it returns ndd.{entry['ndd']}(...) itself", method)
    statement = method.body.body[-1]
    new_last = statement.with_changes(body=[returned.with_changes(value=made)])
    return method.with_changes(body=method.body.with_changes(body=[*method.body.body[:-1], new_last]))


# The __init__ a subclass with only define_graph gets where its readers or sources need one.
_FORWARDING_INIT = "def __init__(self, *args, **kwargs):\n    super().__init__(*args, **kwargs)\n"


def emit_class(unroller, desc: PipelineDesc, original: cst.ClassDef, updated: cst.ClassDef):
    objects = desc.extra["objects"]
    methods = _methods(original)
    config = desc.config
    if desc.extra["base"]:
        unroller.report(rules.UNROLL.id, f"class {desc.name} (the base of Pipeline subclasses, without define_graph) "
                        f"-> a {STREAM_CLASS} base: its ops objects become ndd calls, its subclasses' steps() "
                        f"yield the steps", original)
    else:
        unroller.report(rules.UNROLL.id, f"class {desc.name} -> a {STREAM_CLASS} whose steps() generator yields one "
                        f"step per pipe.run()", original)
    replacements = {}
    if desc.extra["super_statement"] is not None:  # the class that derives from Pipeline itself
        unroller._report_config(desc, original)
        attributes = []
        forwarded = desc.extra.get("forwarded_options")
        if forwarded is not None:
            call = cst.Call(func=expr(f"self.{OPTIONS_METHOD}"), args=forwarded)
            attributes.append(stmt(f"{code_of(call)}  # the Pipeline options the steps read: "
                                   f"{', '.join(_STEP_OPTIONS)}\n"))
            unroller.report(rules.PIPELINE_OPTION.id, f"{desc.name}: super().__init__({code_of(call).split('(', 1)[1][:-1]}) "
                            f"forwarded its callers' Pipeline options -> self.{OPTIONS_METHOD}(...) takes "
                            f"{', '.join(_STEP_OPTIONS)} at run time as Pipeline.__init__ did; the options that only "
                            f"tuned pipeline mode's execution are dropped, and enable_conditionals, "
                            f"enable_checkpointing or checkpoint given there raise", original)
        for name in () if forwarded is not None else _STEP_OPTIONS:
            value = config.get(name)
            if name == "seed" and value is not None and literal_value(value) == -1:
                value = None
            attributes.append(stmt(f"self.{name} = {code_of(value) if value is not None else 'None'}\n"))
        if desc.extra.get("checkpoint"):
            attributes.append(stmt(f"self.{checkpoints.PARAM} = {desc.extra['checkpoint_param']}\n"))
        if desc.extra.get("feeds"):  # how far a DALI iterator with size= had run it past an epoch's end
            ahead = unroller.run_ahead(desc, original)
            if ahead != str(prefetch.DEFAULT_DEPTH):
                attributes.append(stmt(f"self._prefetch_depth = {ahead}\n"))
        replacements[desc.extra["super_statement"]] = attributes
    for obj in objects.values():
        if obj.is_source and obj.graph_source is not None:  # the steps call it as fn.external_source did
            replacements[obj.statement] = [stmt(f"self.{obj.attr} = {code_of(obj.graph_source)}\n")]
            unroller.report(rules.UNROLL.id, f"ops.ExternalSource self.{obj.attr}: the attribute keeps its source "
                            f"({code_of(obj.graph_source)}), which the steps read as fn.external_source did",
                            obj.statement)
            continue
        if obj.is_source:
            replacements[obj.statement] = []  # fed by iter_setup(), which now sets the graph's input itself
            continue
        if obj.is_reader and obj.attr in desc.extra.get("base_readers", {}):
            replacements[obj.statement] = [stmt(f"self.{obj.attr} = {code_of(desc.extra['base_readers'][obj.attr])}\n")]
            unroller.report(rules.READER_ONCE.id, f"self.{obj.attr} (a reader {desc.name} creates for its subclasses' "
                            f"define_graph) -> the ndd reader, created here once; the subclasses' steps iterate it",
                            obj.statement)
            continue
        if obj.is_reader:
            if obj.attr in desc.extra.get("reader_attrs", ()):
                reader = desc.readers[desc.extra["reader_attrs"].index(obj.attr)]
                alternatives = desc.extra["reader_alternatives"][obj.attr]
                if obj.chosen is not None:  # self.x = A(...) if c else B(...)
                    made = cst.IfExp(test=obj.chosen.test, body=reader.call, orelse=alternatives[0][1],
                                     whitespace_before_if=obj.chosen.whitespace_before_if,
                                     whitespace_after_if=obj.chosen.whitespace_after_if,
                                     whitespace_before_else=obj.chosen.whitespace_before_else,
                                     whitespace_after_else=obj.chosen.whitespace_after_else)
                    alternatives = []
                else:
                    made = reader.call
                for statement, call in [(obj.statement, made), *alternatives]:
                    replacements[statement] = [stmt(f"self.{obj.attr} = {code_of(call)}\n")]
                    if reader.name is not None:
                        replacements[statement].append(_readers_statement(
                            reader.name, obj.attr, several=len(desc.extra["reader_attrs"]) > 1))
                if obj.others:
                    unroller.report(rules.READER_ONCE.id, f"self.{obj.attr} holds one reader or another by a "
                                    f"condition of __init__: each is created there as an ndd reader, and the steps "
                                    f"read the one self.{obj.attr} holds", obj.statement)
            for reader, _, attr, _, _ in desc.extra.get("init_branch_readers", ()):
                if attr == obj.attr:  # called under an `if` of define_graph: created here all the same
                    replacements[obj.statement] = [stmt(f"self.{obj.attr} = {code_of(reader.call)}\n")]
            continue
        if obj.inline:
            replacements[obj.statement] = []
            continue
        if obj.fn_path == COMPOSE_PATH:
            replacements[obj.statement] = _compose_statement(unroller, obj, desc)
            continue
        for call, statement, entry in [(obj.call, obj.statement, obj.entry), *obj.others]:
            replacements[statement] = _lambda_statement(unroller, obj, call, statement, desc, entry)
        for call, statement in obj.source_branches:
            replacements[statement] = _source_branch_statements(unroller, obj, call, statement, methods["__init__"])
        unroller.report(rules.UNROLL.id, f"ops object self.{obj.attr} ({obj.fn_path}) -> an ndd call with the same "
                        f"arguments (a lambda: its arguments are computed in __init__)", obj.statement)
    init = methods.get("__init__")
    hoisted = desc.extra.get("hoisted_reader")
    if init is None and hoisted is not None:  # a subclass with only define_graph: its reader needs an __init__
        init = parse_statement(_FORWARDING_INIT)
    elif init is not None:
        init = transform(init, _InitRewrite(replacements), layout=False)
    inherited_readers = desc.extra.get("inherited_readers", ())
    named = [(reader.name, attr) for reader, attr in zip(desc.readers, desc.extra.get("reader_attrs", ()))
             if attr in inherited_readers and reader.name is not None]
    if named:  # the base created them: listed by the names this class's define_graph gave them
        if init is None:
            init = parse_statement(_FORWARDING_INIT)
        init = init.with_changes(body=init.body.with_changes(body=[
            *init.body.body, *(_readers_statement(name, attr, several=True) for name, attr in named)]))
    if hoisted is not None:
        reader = desc.readers[0]
        created = [stmt(f"self.{hoisted} = {code_of(reader.call)}\n")]
        if reader.name is not None:
            created.append(_readers_statement(reader.name, hoisted))
        init = init.with_changes(body=init.body.with_changes(body=[*init.body.body, *created]))
    branch_readers = _branch_reader_statements(desc)
    if branch_readers:
        if init is None:  # a subclass with only define_graph: its readers need an __init__
            init = parse_statement(_FORWARDING_INIT)
        init = init.with_changes(body=init.body.with_changes(body=[*init.body.body, *branch_readers]))
    sources = _hoisted_sources(desc, original)
    if sources:
        if init is None:  # a subclass with only define_graph: its sources need an __init__
            init = parse_statement(_FORWARDING_INIT)
        created = []
        for var, setup in sources.items():
            created += [stmt(f"self.{var} = {code_of(setup.body[0].value)}\n"),
                        stmt(f'self._readers = {{**self._readers, **getattr(self.{var}, "_readers", {{}})}}\n')]
            unroller.report(rules.READER_META.id, f"{desc.name}: the stream of {code_of(setup.body[0].value.func)}"
                            f"(...) is created in __init__, so that the readers it names answer epoch_size()/"
                            f"reader_meta() before the first step", original)
        init = init.with_changes(body=init.body.with_changes(body=[*init.body.body, *created]))
    if desc.extra.get("checkpoint_added"):
        param = cst.Param(cst.Name(checkpoints.PARAM), default=cst.Name("None"),
                          equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                whitespace_after=cst.SimpleWhitespace("")))
        params = init.params
        star = params.star_arg if isinstance(params.star_arg, (cst.Param, cst.ParamStar)) else cst.ParamStar()
        init = init.with_changes(params=params.with_changes(star_arg=star,
                                                            kwonly_params=[*params.kwonly_params, param]))

    if init is not None:
        init = _constants_after_options(unroller, init)
        init = _without_self_build(unroller, init)
    # the other methods: calls of the ops objects they make, as in define_graph
    helpers = _GraphCalls(desc.extra["helper_objects"], set(), Env(
        unroller.ctx, unroller._reporter, batch_size="self.batch_size", seed="self.seed",
        rng_mode=unroller.d.rng_mode, prefix="", rng_counter=unroller.rng_counter))
    new_body = [transform(transform(s, helpers, layout=False), _constants(unroller), layout=False)
                if isinstance(s, cst.FunctionDef) and s.name.value not in ("__init__", "define_graph") else s
                for s in updated.body.body]
    makers = _reader_makers(unroller.ctx.imports, methods)
    new_body = [_ndd_maker(unroller, s) if isinstance(s, cst.FunctionDef) and s.name.value in makers else s
                for s in new_body]
    reader_helpers = {name: desc.extra["reader_helpers"][method] for name, method in methods.items()
                      if method in desc.extra.get("reader_helpers", {})}  # this class's own
    for index, statement in enumerate(new_body):
        if isinstance(statement, cst.FunctionDef) and statement.name.value in reader_helpers:
            new_body[index] = _helper_taking_outputs(statement, desc.extra["hierarchy_readers"])
            reads = reader_helpers[statement.name.value]
            unroller.report(rules.READER_ONCE.id, f"{desc.name}.{statement.name.value}() read "
                            f"{', '.join(f'self.{r.attr}' for r in reads)}: the steps iterate the reader where "
                            f"define_graph called it, and hand its outputs to {statement.name.value}("
                            f"{', '.join(n for r in reads for n in r.params)})", methods[statement.name.value])
    if desc.extra.get("feeds"):  # iter_setup(): each feed_input statement sets the attribute the steps read
        setup = transform(transform(methods[ITER_SETUP], _InitRewrite(desc.extra["feeds"]), layout=False), helpers,
                          layout=False)
        new_body = [setup if isinstance(s, cst.FunctionDef) and s.name.value == ITER_SETUP else s for s in new_body]
        at = next(i for i, s in enumerate(new_body) if isinstance(s, cst.FunctionDef) and s.name.value == ITER_SETUP)
        new_body.insert(at + 1, stmt(RESTART).with_changes(leading_lines=[cst.EmptyLine(indent=False)]))
    if init is not None and "__init__" not in methods:
        if new_body and not new_body[0].leading_lines:
            new_body[0] = new_body[0].with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        new_body.insert(0, init)
    new_body = [init if isinstance(s, cst.FunctionDef) and s.name.value == "__init__" else s for s in new_body]
    if desc.extra["base"]:
        return updated.with_changes(bases=stream_bases(unroller, updated),
                                    body=updated.body.with_changes(body=_rename_graph_helpers(
                                        unroller, desc, original, new_body)))

    env = Env(unroller.ctx, unroller._reporter, batch_size="self.batch_size", seed="self.seed",
              rng_mode=unroller.d.rng_mode, prefix="", rng_counter=unroller.rng_counter)
    body = [thread_statement("self.num_threads"), *seeding_statements(desc, env, config.get("seed"))]
    steps = loop_statements(desc, env)
    steps = [stmt(f"{var} = self.{var}\n").with_changes(leading_lines=s.leading_lines)
             if s in sources.values() and (var := _assigned_name(s)) else s for s in steps]
    if desc.readers and (desc.extra["reader_attr"] is not None or hoisted is not None):
        steps = [s for s in steps if not any(_assigns(s, reader.var) for reader in desc.readers)]
    if desc.extra.get("checkpoint"):
        objects = checkpoints.stateful_objects(desc, unroller.d.rng_mode, _uses_name(desc, "rng"))
        steps[-1:-1] = checkpoints.registration(desc, objects, holder=f"self.{checkpoints.PARAM}")
    body += steps
    fed_attributes = {obj.attr for obj in desc.extra["objects"].values() if obj.source_branches}
    if fed_attributes:
        body = [transform(s, _SourceEnds(fed_attributes), layout=False) for s in body]
    device = unroller.device_of(desc)
    if device is not None:
        body = [device_statement(device, body, unroller.ctx)]
    graph = desc.extra["graph"]
    steps = graph.with_changes(name=cst.Name(STEPS_METHOD), body=graph.body.with_changes(body=body),
                               decorators=[*graph.decorators, *unroller.prefetch_decorators(desc, original)])
    new_body = [steps.with_changes(leading_lines=s.leading_lines) if isinstance(s, cst.FunctionDef)
                and s.name.value == "define_graph" else s for s in new_body]
    if "define_graph" not in methods:  # inherited: this class yields the steps of its base's define_graph
        new_body.append(steps.with_changes(leading_lines=[cst.EmptyLine(indent=False)]))
    new_body = _rename_graph_helpers(unroller, desc, original, new_body)
    return updated.with_changes(bases=stream_bases(unroller, updated), body=updated.body.with_changes(body=new_body))


def _branch_reader_statements(desc: PipelineDesc) -> list:
    """The end of ``__init__`` for the readers define_graph called under a build-time ``if``
    (graph._init_reader): an fn reader is created there under its condition; each named one is listed in
    ``self._readers`` under its condition, so that epoch_size()/reader_meta() find the one the steps read."""
    found = []
    for reader, condition, attr, is_object, _ in desc.extra.get("init_branch_readers", ()):
        body = [] if is_object else [stmt(f"self.{attr} = {code_of(reader.call)}\n")]
        if reader.name is not None:
            body.append(stmt(f"self._readers = {{**self._readers, {stream._quoted(reader.name)}: self.{attr}}}\n"))
        if body:
            found.append(cst.If(test=condition, body=cst.IndentedBlock(body)))
    return found


class _SelfBuild(cst.CSTTransformer):
    """Drops ``self.build()`` statements: the migrated class has no build (its steps start at the first next())."""

    def __init__(self):
        super().__init__()
        self.dropped = []

    def leave_SimpleStatementLine(self, original_node, updated_node):
        body = updated_node.body
        if len(body) == 1 and isinstance(body[0], cst.Expr) and isinstance(body[0].value, cst.Call) \
                and not body[0].value.args and _self_attr(body[0].value.func) == "build":
            self.dropped.append(original_node)
            return cst.RemoveFromParent()
        return updated_node

    def leave_IndentedBlock(self, original_node, updated_node):
        if not updated_node.body:
            return updated_node.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
        return updated_node


def _without_self_build(unroller, init: cst.FunctionDef) -> cst.FunctionDef:
    """``self.build()`` in __init__ (a class that builds itself): the migrated class needs no build."""
    dropper = _SelfBuild()
    init = transform(init, dropper, layout=False)
    for statement in dropper.dropped:
        unroller.report(rules.BUILD_RUN.id, "self.build() is dropped: the migrated class needs no build; its steps "
                        "start at the first next()", statement)
    return init


def _assigned_name(statement) -> str | None:
    target = statement.body[0].targets[0].target
    return target.value if isinstance(target, cst.Name) else None


def _hoisted_sources(desc: PipelineDesc, original: cst.ClassDef) -> dict:
    """{variable: its statement} for the source helpers' streams the steps create (``source = helper(...,
    batch_size=self.batch_size)``), created at the end of ``__init__`` instead, where the readers they name join
    ``self._readers``: the object answers for them before its first step, as after build(). Only where their
    arguments read nothing define_graph computes and the class has no attribute of that name."""
    graph = desc.extra.get("graph")
    sources = eager_sources(desc)
    if graph is None or not sources or desc.extra.get("checkpoint") or desc.extra.get("feeds"):
        return {}
    attributes = _SelfAttributes()
    walk(original, attributes)
    bound = AssignedNames()
    walk(graph, bound)
    found = {}
    for var, setup in zip(sources, desc.extra["source_setup"]):
        reads = NameReads()
        walk(setup.body[0].value, reads)
        if var in attributes.names or reads.names & bound.names or _assigned_name(setup) != var:
            return {}
        found[var] = setup
    return found


def _constants(unroller) -> constants.Rewriter:
    """Constants (``types.Constant``, ``fn.constant``) that the class's helper methods build, or its ``__init__``
    once the pipeline options are set: a batch of the pipeline's batch size, as in the steps (capability 5)."""
    return constants.Rewriter(unroller.ctx.imports, "self.batch_size", lambda original, found: unroller.report(
        rules.CONSTANT.id, f"{code_of(original)} -> {code_of(found)}: a batch of self.batch_size samples, as the "
        f"constant node gave every step", original), unroller.ctx)


def _constants_after_options(unroller, init: cst.FunctionDef) -> cst.FunctionDef:
    """``__init__`` with the constants rewritten in the statements after ``super().__init__(...)`` (or the
    attributes that replaced it): before it, ``self.batch_size`` is not set yet."""
    body = list(init.body.body)
    first = next((i for i, statement in enumerate(body) if isinstance(statement, cst.SimpleStatementLine) and (
        code_of(statement).lstrip().startswith(("self.batch_size =", "super(")) or ".__init__(" in code_of(statement))),
        None)
    if first is None:
        return init
    rewriter = _constants(unroller)
    rewriter.hoisting = "local"  # types.Constant(f(x)): f(x) is called there, once, as pipeline mode called it
    rewritten = []
    for statement in body[first + 1:]:
        new = transform(statement, rewriter, layout=False)
        made = rewriter.take_pending()
        if made:
            made[0] = made[0].with_changes(leading_lines=new.leading_lines)
            new = new.with_changes(leading_lines=[])
        rewritten += [*made, new]
    body[first + 1:] = rewritten
    return init.with_changes(body=init.body.with_changes(body=body))


def stream_bases(unroller, updated: cst.ClassDef) -> list[cst.Arg]:
    """The class's bases with ``Pipeline`` replaced by ``ReaderStream``: an instance is an iterator over the
    steps its define_graph() generator yields (``next(pipe)`` for ``pipe.run()``) that answers epoch_size(),
    reader_meta() and max_batch_size at run time, wherever the object goes (a factory, a list, an attribute);
    its define_graph is the generator ``steps`` that ReaderStream calls."""
    unroller.need_stream = True
    return [b.with_changes(value=cst.Name(STREAM_CLASS)) if unroller.ctx.imports.qualname(b.value) == PIPELINE_CLS
            else b for b in updated.bases]


def _readers_statement(name: str, attr: str, several: bool = False) -> cst.BaseStatement:
    """``self._readers``: the reader by its name, which epoch_size(name)/reader_meta(name) ask (ReaderStream);
    ``several``: added to the others' (a class with several readers)."""
    others = "**self._readers, " if several else ""
    return stmt(f"self._readers = {{{others}{repr(name).replace(chr(39), chr(34))}: self.{attr}}}\n")


def _lambda_statement(unroller, obj, call, statement, desc, entry):
    seed = kwarg(call, "seed") if entry.get("random") else None
    before, rng = [], None
    if seed is not None:
        # The op's own random stream: one RNG, created here once (an RNG made inside the lambda would
        # restart at every call and repeat the same values every step).
        rng = f"self.{obj.attr}_rng"
        before.append(stmt(f"{rng} = ndd.random.RNG(seed={code_of(seed)})\n"))
        unroller.report(rules.OP_SEED.id, f"self.{obj.attr}: seed={code_of(seed)} -> its own "
                        f"ndd.random.RNG ({rng}), created once", statement)
    if entry.get("random"):
        desc.has_random = True
    lam = ops_object_callable(call, entry, expr(rng) if rng else None)
    return [*before, stmt(f"self.{obj.attr} = {code_of(lam)}\n")]


def _compose_statement(unroller, obj: _OpsObject, desc) -> list:
    """``self.x = ops.Compose([ops.A(a), ops.B(b)])`` -> ``self.x = lambda *inputs, **kwargs: ndd.b(ndd.a(*inputs, a,
    **kwargs), b)``: what DALI 2.4.0's _CompoundOp computes (each op on the outputs of the one before, the call's
    keyword arguments to the first). Where a GPU op follows a CPU one, _CompoundOp added ``.gpu()`` to the inputs
    the op's schema wants on the GPU; an ndd op moves its inputs to the device its schema says by itself
    (``_ops.py``, convert_args with ``_input_device``: docs/dali-facts.md), so the chain needs no ``.gpu()``. A
    random op with its own seed= gets an RNG of its own, created once; one without takes the pipeline's seed."""
    before, current = [], None
    parts = obj.entry["compose"]
    for index, (path, fn_path, entry, sub) in enumerate(parts):
        ctor = cst.Call(func=ndd_attr(entry["ndd"]),
                        args=[a for a in sub.args if a.keyword is None or a.keyword.value not in NON_READER_DROPPED])
        seed = kwarg(ctor, "seed")
        if entry.get("random") and seed is not None:
            rng = f"self.{obj.attr}_rng" + (str(index) if sum(1 for p in parts if p[2].get("random")) > 1 else "")
            before.append(stmt(f"{rng} = ndd.random.RNG(seed={code_of(seed)})\n"))
            ctor = with_kwarg(without_kwargs(ctor, {"seed"}), "rng", expr(rng))
            unroller.report(rules.OP_SEED.id, f"self.{obj.attr}: ops.{path}(seed={code_of(seed)}) -> its own "
                            f"ndd.random.RNG ({rng}), created once", obj.statement)
        if entry.get("random"):
            desc.has_random = True
        inputs = [cst.Arg(cst.Name("inputs"), star="*")] if current is None else [cst.Arg(current)]
        extra = [cst.Arg(cst.Name("kwargs"), star="**")] if current is None else []
        args = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in
                [*inputs, *ctor.args, *extra]]  # one line: the chain is one lambda
        current = _normalise_commas(ctor.with_changes(args=args))
    lam = cst.Lambda(params=cst.Parameters(star_arg=cst.Param(cst.Name("inputs"), star="*"),
                                           star_kwarg=cst.Param(cst.Name("kwargs"), star="**")), body=current)
    chain = " -> ".join(p[1] for p in parts)
    unroller.report(rules.UNROLL.id, f"{code_of(obj.call.func)}([...]) self.{obj.attr} -> one callable chaining the ndd "
                    f"calls ({chain}) with the same arguments; each moves its inputs to its device as Compose did",
                    obj.statement)
    return [*before, stmt(f"self.{obj.attr} = {code_of(lam)}\n")]


def _assigns(statement, var):
    return isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[0], cst.Assign) \
        and code_of(statement.body[0].targets[0].target) == var


__all__ = ["emit_class"]
