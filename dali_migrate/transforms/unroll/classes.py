"""Pipeline subclasses with define_graph, and the legacy ``ops.*`` objects they hold.

``class P(Pipeline)`` becomes ``class P(ReaderStream)`` with the same ``__init__`` signature:
``super().__init__`` turns into attributes (batch_size, num_threads, device_id, seed), the reader ops object
into the ndd reader (created once, in ``__init__``, and listed by its name in ``self._readers``), and
``define_graph`` into a generator that yields one step per former ``pipe.run()``. The instance is the
pipeline, as before: ``next(pipe)`` gives the next step, and ``epoch_size``/``reader_meta``/``max_batch_size``
answer from its reader (``stream.py``). Other ops objects become ndd calls with the same arguments: inline
in ``steps`` when their arguments are constants, else a lambda built in ``__init__`` (so arguments
computed there keep their values, as the ops object kept them). Removed classes such as
``ops.nvJPEGDecoder`` or ``ops.FileReader`` map through the op table.
"""

from __future__ import annotations

import libcst as cst

from ...walk import transform, walk
from ... import optable
from ...dataflow import STREAM_CLASS
from ...names import NDD, free_name
from . import checkpoints, conditional, constants, prefetch, rules, stream
from .class_common import (OPTIONS_METHOD, STEPS_METHOD, _STEP_OPTIONS, _STREAM_ATTRIBUTES, _AttrUses, _InitRewrite,
                           _SelfAttributes, _SelfTargets, _methods, _normalise_commas, _self_attr)
from .class_hierarchy import _across_modules, _hierarchy, _imports_of, _kept_elsewhere, filled_instances
from .class_ops_objects import (COMPOSE_PATH, NON_READER_DROPPED, _GraphCalls, _OpsObject, _collect_objects,
                                _reader_makers)
from .class_reader_methods import _graph_with_reader_reads, _helper_taking_outputs, _hierarchy_readers, _reader_helpers
from .class_renames import _graph_helper_names, _rename_graph_helpers
from .class_sources import FEED_INPUT, ITER_SETUP, _SourceEnds, _feeds, _source_branch_statements
from .graph import (_uses_name, Env, argument_inputs_alike, build_graph, closing_returns, device_statement,
                    eager_sources, loop_statements, make_reader, output_elements, seeding_statements, thread_statement)
from .model import (PIPELINE_CLS, AssignedNames, CannotUnroll, NameReads, PipelineDesc, code_of, expr, kwarg, ops_path,
                    stmt, with_kwarg, without_kwargs, ndd_attr, literal_value, ops_object_callable)

EPOCH_ENDED = "iter_setup() ended the epoch: pipe.run() raised StopIteration until pipe.reset()"
# A class fed by iter_setup(): reset() after its steps ended starts them again (ReaderStream.reset).
RESTART = ("def _restart(self, epoch):\n"
           "    \"\"\"pipe.reset() after iter_setup() ended an epoch: the next epoch's steps.\"\"\"\n"
           "    return self.steps()\n")
_POSITIONAL = ("batch_size", "num_threads", "device_id", "seed", "exec_pipelined", "prefetch_queue_depth",
               "exec_async", "bytes_per_sample", "set_affinity", "max_streams", "default_cuda_stream_priority")
# Pipeline methods a ReaderStream does not have (it has epoch_size, reader_meta, reset, max_batch_size, batch_size):
# another method of the class that uses one keeps the class in pipeline mode
_PIPELINE_ONLY = ("build", "run", "schedule_run", "share_outputs", "release_outputs", "outputs", "feed_input",
                  "serialize", "set_outputs", "checkpoint", "_prefetch", "_run_once", "start_py_workers")


def _super_init(statement, class_name, imports):
    """The Pipeline.__init__ call of ``super().__init__(...)`` forms, or None."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Expr) and isinstance(statement.body[0].value, cst.Call)):
        return None
    call = statement.body[0].value
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "__init__"):
        return None
    owner = func.value
    if isinstance(owner, cst.Call) and isinstance(owner.func, cst.Name) and owner.func.value == "super":
        return call, list(call.args)
    if imports.qualname(owner) == PIPELINE_CLS:
        return call, list(call.args)[1:]  # Pipeline.__init__(self, ...)
    return None


def _config(args):
    config = {}
    positional = [a for a in args if a.keyword is None]
    if any(a.star for a in args):
        raise CannotUnroll("super().__init__ with *args/**kwargs: the pipeline arguments are not known")
    for name, arg in zip(_POSITIONAL, positional):
        config[name] = arg.value
    for arg in args:
        if arg.keyword is not None:
            config[arg.keyword.value] = arg.value
    return config


def describe_class(unroller, node: cst.ClassDef) -> PipelineDesc:
    """A Pipeline subclass, alone or in a hierarchy of this module's classes: the one that derives from
    Pipeline (its ``super().__init__`` gives the pipeline options), a base class without define_graph that
    builds shared ops and helpers (``base``), a subclass that adds its reader and define_graph."""
    imports = unroller.ctx.imports
    # The ops objects become ndd calls that the graph builder must know as such (a reader is found by its
    # ndd path): the project's pre-scan describes classes before any pass has added the ndd import.
    imports.aliases.setdefault("ndd", NDD)
    chain, subclasses = _hierarchy(unroller, node)
    hierarchy = len(chain) > 1 or bool(subclasses)
    methods = {}
    for cls in reversed(chain):
        methods.update(_methods(cls))
    own = _methods(node)
    if FEED_INPUT in methods:
        raise CannotUnroll("the class defines its own feed_input()", methods[FEED_INPUT])
    if ITER_SETUP in methods and (hierarchy or ITER_SETUP not in own or "define_graph" not in own):
        raise CannotUnroll("iter_setup() in a class hierarchy: only a class with its own define_graph and "
                           "iter_setup is migrated", methods[ITER_SETUP])
    attributes = _SelfAttributes()
    for cls in {*chain, *subclasses}:
        walk(cls, attributes)
    taken = (attributes.names | set(methods)) & set(_STREAM_ATTRIBUTES)
    if taken:
        raise CannotUnroll(f"the class has its own {', '.join(sorted(taken))}, which the migrated class (a "
                           f"{STREAM_CLASS}) defines", node)
    renames, renames_kept = _graph_helper_names({*chain, *subclasses}, attributes.names)
    _across_modules(unroller, node, chain, subclasses)
    if (renames or renames_kept) and any(c in unroller.__dict__.get("_foreign_records", {})
                                         for c in [*chain, *subclasses]):
        raise CannotUnroll(f"a method named like define_graph ({', '.join(sorted({*renames, *renames_kept}))}) in a "
                           f"class hierarchy across modules: its new name would have to agree in every module", node)
    root_init, graph = _methods(chain[-1]).get("__init__"), methods.get("define_graph")
    base = graph is None and any("define_graph" in _methods(c) for c in subclasses)
    if root_init is not None and graph is None and not base:
        filled = filled_instances(unroller, node.name.value)
        if filled:  # used as a plain Pipeline here: its pipelines are built in this module, not in others
            own = sorted({*attributes.names, *methods} - {"__init__"})
            raise CannotUnroll(f"a Pipeline subclass with no define_graph, used here as a Pipeline filled with `with "
                               f"{filled[0]}:`: each instance is both the pipeline and an object of the class"
                               + (f" ({', '.join(own)})" if own else "") + ", and the tool does not split one "
                               "into a dynamic-mode generator and an object that keeps the rest", node)
        raise CannotUnroll("a Pipeline subclass with no define_graph, and no subclass in this module defines one: "
                           "the pipelines built on it are defined in other modules, and a base class changes with "
                           "its subclasses (a hierarchy across modules migrates when its modules are migrated "
                           "together: `dali-migrate migrate --write` over the folder that holds them)", node)
    if root_init is None or graph is None and not base:
        raise CannotUnroll("a Pipeline subclass without __init__ and define_graph", node)
    super_call = None
    for statement in root_init.body.body:
        super_call = _super_init(statement, chain[-1].name.value, _imports_of(unroller, chain[-1]))
        if super_call is not None:
            super_statement = statement if chain[-1] is node else None
            break
    if super_call is None:
        raise CannotUnroll("no super().__init__(...) call in __init__", root_init)
    forwarded = any(a.star for a in super_call[1])
    if forwarded:
        # super().__init__(*args, **kwargs): the options are known at run time only; ReaderStream._pipeline_options
        # takes them as Pipeline.__init__ did, and the steps read them from self
        config = {name: expr(f"self.{name}") for name in _STEP_OPTIONS}
        if ITER_SETUP in methods:  # (how far a DALI iterator ran it ahead depends on its prefetch_queue_depth)
            raise CannotUnroll("super().__init__ with *args/**kwargs in a class fed by iter_setup(): its prefetch "
                               "depth, which decides the epochs a DALI iterator sees, is not known", node)
    else:
        config = _config(super_call[1])
    unroller._check_config(node.name.value, config, node)
    if hierarchy and checkpoints.enabled(config):
        raise CannotUnroll("a checkpointed Pipeline class hierarchy", node)

    init = own.get("__init__")
    makers = {}  # a base class's get_reader() too (read with its own module's imports)
    for cls in reversed(chain):
        makers.update(_reader_makers(_imports_of(unroller, cls), _methods(cls)))
    makers = {name: method for name, method in makers.items() if methods.get(name) is method}
    objects = _collect_objects(imports, init, hierarchy, makers)
    inherited = {}  # the ancestors' ops objects, which this class's methods call too
    for cls in reversed(chain[1:]):
        inherited.update(_collect_objects(_imports_of(unroller, cls), _methods(cls).get("__init__"), hierarchy,
                                          makers))
    # readers a base class creates in its __init__: created there as ndd readers (``_base_reader_call``, the
    # base's side), read by this class's define_graph (each by a statement of its own, as its own readers)
    inherited_readers = {attr: obj for attr, obj in inherited.items() if obj.is_reader and attr not in objects}
    for obj in inherited_readers.values():
        if obj.others or obj.chosen is not None:
            raise CannotUnroll(f"self.{obj.attr}: a base class's __init__ creates one reader or another by a "
                               f"condition", obj.statement)
    if any(obj.is_source for obj in inherited.values()):
        raise CannotUnroll("an external source created in a base class's __init__", node)
    env = Env(unroller.ctx, unroller._reporter, batch_size="self.batch_size", seed="self.seed",
              rng_mode=unroller.d.rng_mode, prefix="", rng_counter=unroller.rng_counter)
    callable_objects = {**inherited, **objects}
    desc = PipelineDesc(name=node.name.value, style="class", node=node, config=config)
    # a random ops object, called by a helper method too: the pipeline seed applies to it
    desc.has_random = hierarchy and any(obj.random for obj in callable_objects.values())
    for obj in callable_objects.values():
        for path, call in [(obj.fn_path, obj.call), *((p, sub) for _, p, _, sub in obj.entry.get("compose", ()))]:
            if path not in (COMPOSE_PATH, "external_source") and not obj.is_reader:
                argument_inputs_alike(call, env, path)  # an argument dynamic mode reads differently (DM117)
        if unroller.d.rng_mode and obj.fn_path == COMPOSE_PATH and any(
                entry.get("random") and kwarg(sub, "seed") is None for *_, entry, sub in obj.entry["compose"]):
            raise CannotUnroll(f"self.{obj.attr} chains a random operator without a seed of its own, and the program "
                               f"passes the pipeline's RNG to those (rng=), which a chain written in __init__ cannot "
                               f"reach", obj.statement)
        if unroller.d.rng_mode and any(bool(e.get("random")) != bool(obj.entry.get("random")) for *_, e in obj.others):
            raise CannotUnroll(f"self.{obj.attr} is a random operator in some branches only: its calls cannot all "
                               f"take rng=", obj.statement)
    nearest_init = next((_methods(c)["__init__"] for c in chain if "__init__" in _methods(c)), root_init)
    desc.params = [p.name.value for p in nearest_init.params.params][1:]
    # the ops objects the other methods call (their rewriter is made when the class is written: an Env held
    # here would tie the unroller, its descriptions and their trees in a reference cycle)
    desc.extra.update(objects=objects, super_statement=super_statement, reader_attr=None, base=base,
                      forwarded_options=super_call[1] if forwarded else None,
                      helper_objects=callable_objects, renames=renames, renames_kept=renames_kept)
    hierarchy_readers = _hierarchy_readers(unroller, [*chain, *subclasses])
    helper_reads = _reader_helpers({*chain, *subclasses}, hierarchy_readers)
    # the reader helpers as this class's define_graph calls them: by name, through its bases
    reader_helpers = {name: helper_reads[method] for name, method in methods.items() if method in helper_reads}
    desc.extra.update(reader_helpers=helper_reads, hierarchy_readers=hierarchy_readers)
    if base:
        desc.extra["base_readers"] = {attr: _base_reader_call(obj, env, desc) for attr, obj in objects.items()
                                      if obj.is_reader}
        _kept_elsewhere(unroller, node, chain, subclasses)
        return desc
    graph_statements = list(graph.body.body)
    if reader_helpers:
        for name, reads in reader_helpers.items():
            for read in reads:
                if read.attr not in {**inherited_readers, **objects}:
                    raise CannotUnroll(f"{name}() reads self.{read.attr}, a reader {node.name.value} does not create "
                                       f"(a subclass's __init__ does)", read.call)
        taken = NameReads()
        walk(graph, taken)
        bound = AssignedNames()
        walk(graph, bound)
        graph_statements = _graph_with_reader_reads(graph_statements, reader_helpers, taken.names | bound.names)
    statements, branched = closing_returns(graph_statements, imports, unroller.report, node.name.value,
                                           refuse=lambda found: _reads_reader_object(found, callable_objects))
    if not branched and not (statements and isinstance(statements[-1], cst.SimpleStatementLine)
                             and isinstance(statements[-1].body[0], cst.Return)):
        raise CannotUnroll("define_graph does not end with `return <outputs>`", graph)
    targets = _SelfTargets()
    walk(graph, targets)
    fed = _feeds(node, own, objects, statements)
    local_attrs = targets.names - set(callable_objects) - set(fed.attrs)
    readable = {**inherited_readers, **objects}  # the reader objects define_graph may call
    rewriter = _GraphCalls(callable_objects, local_attrs, env)
    reader_attrs: list[str] = []  # the ops reader objects define_graph calls, in order
    site_kwargs: dict[str, list] = {}  # each one's call arguments (name=...), merged into its constructor
    converted = []
    for statement in [part for s in statements for part in _split_readers(s, readable)]:
        if statement in fed.graph_statements:
            continue  # `self.jpegs = self.input()`: iter_setup() sets self.jpegs to the batch it fed
        if statement in fed.in_graph:  # `x = self.src()`: the external source it was
            converted.append(fed.in_graph[statement])
            if statement in unroller.ctx.positions:
                unroller.ctx.positions.setdefault(converted[-1], unroller.ctx.positions[statement])
            continue
        reader_obj = _reader_call(statement, readable)
        original_statement = statement
        if reader_obj is not None:
            if reader_obj.attr in reader_attrs:
                raise CannotUnroll(f"self.{reader_obj.attr} is called twice in define_graph", statement)
            reader_attrs.append(reader_obj.attr)
            call = statement.body[0].value
            site_kwargs[reader_obj.attr] = [a for a in call.args if a.keyword is not None]
            if reader_obj.attr in inherited_readers and (
                    any(a.keyword is None or a.keyword.value != "name" for a in call.args)
                    or kwarg(call, "name") is not None and kwarg(reader_obj.call, "name") is not None):
                raise CannotUnroll(f"{code_of(call)}: a reader a base class creates is called with arguments other "
                                   f"than name= (its base creates it without them)", statement)
            merged = cst.Call(func=ndd_attr(reader_obj.entry["ndd"]),
                              args=[*reader_obj.call.args, *site_kwargs[reader_obj.attr]])
            merged = _normalise_commas(merged)
            assign = statement.body[0]
            new_target = transform(assign.targets[0].target, rewriter, layout=False)
            statement = statement.with_changes(body=[assign.with_changes(
                targets=[assign.targets[0].with_changes(target=new_target)], value=merged)])
            if original_statement in unroller.ctx.positions:
                unroller.ctx.positions.setdefault(statement, unroller.ctx.positions[original_statement])
            converted.append(statement)
            continue
        new = transform(statement, rewriter, layout=False)
        if isinstance(new, cst.If):  # `if self.training: x = self.train_input()`: each created in __init__
            new = _branch_readers(new, objects, desc, reader_attrs, unroller.ctx.positions)
        if statement in unroller.ctx.positions:
            unroller.ctx.positions.setdefault(new, unroller.ctx.positions[statement])
        converted.append(new)
    desc.extra["object_readers"] = len(reader_attrs)
    desc.extra["self_attributes"] = set(attributes.names) | set(methods)  # several readers: each an object created in __init__
    if branched:  # each branch of the closing if/else yields its own outputs
        build_graph(desc, converted, None, env)
    else:
        build_graph(desc, converted[:-1], output_elements(converted[-1].body[0].value), env, closing=converted[-1])
    fed_attributes = [obj for obj in objects.values() if obj.source_branches]
    for obj in fed_attributes:
        for name, method in methods.items():
            if name not in ("__init__", "define_graph") and _AttrUses.count_in(method, obj.attr):
                raise CannotUnroll(f"self.{obj.attr} (an external source or an operator) is used by {name}() too: "
                                   f"an ended source would not end the steps there", method)
    desc.extra["external_sources"] += len(fed_attributes)  # read in the steps: not prefetched, as such sources
    if desc.pre:
        # nothing runs "before the reader" in a define_graph, but the readers created under a condition
        # (graph._conditional_if) are made once, at the start of the steps
        # (and the calls of types.Constant's values, graph._made_once)
        once = [*desc.extra.get("conditional_setup", []), *desc.extra.get("made_once", [])]
        last = max((i for i, s in enumerate(desc.pre) if any(s is o for o in once)), default=-1)
        if last > 0 and any(not any(s is o for o in once) for s in desc.pre[:last]):
            raise CannotUnroll("plain Python before a reader created under a condition in define_graph", graph)
        desc.loop = [s for s in desc.pre if not any(s is o for o in once)] + desc.loop
        desc.pre = [s for s in desc.pre if any(s is o for o in once)]
    if fed.setup:
        # pipe.run() called iter_setup() for each step (ahead of it by the prefetch queue): the step calls it first
        # StopIteration from iter_setup() ended the epoch: pipe.run() raised it until pipe.reset()
        desc.loop = [stmt(f"try:\n    self.{ITER_SETUP}()\nexcept StopIteration:\n    return  # {EPOCH_ENDED}\n"),
                     *desc.loop]
        desc.extra.update(iter_setup=True, feeds=fed.feeds, epochs=True)
        for attr, source in fed.attrs.items():
            unroller.report(rules.UNROLL.id, f"self.feed_input(self.{attr}, data) in iter_setup() -> self.{attr} = "
                            f"ndd.as_batch(data): each step calls iter_setup() and hands its batch to the ops "
                            f"(ops.ExternalSource self.{source.attr} is gone)", source.statement)
            if kwarg(source.call, "dtype") is not None:
                unroller.report(rules.EXTERNAL_SOURCE.id, f"self.{source.attr}: ExternalSource dtype= checked the fed "
                                f"data's type in pipeline mode (an error on a mismatch); ndd.as_batch(dtype=) "
                                f"converts to it", source.statement)
    for obj in objects.values():
        if obj.made_by is not None and obj.attr not in reader_attrs:
            raise CannotUnroll(f"self.{obj.attr} (the reader {obj.made_by}() returns) is not called by a statement of "
                               f"its own in define_graph (`x = self.{obj.attr}(...)`)", obj.statement)
    if len(desc.readers) > len(reader_attrs) and reader_attrs:
        raise CannotUnroll("an fn reader in define_graph beside an ops reader object", graph)
    if desc.readers and reader_attrs:
        # Ops reader objects: each created once in __init__ (an fn reader called in define_graph moves there
        # too, _hoist_reader).
        desc.extra["reader_alternatives"] = {}
        for reader, attr in zip(desc.readers, reader_attrs):
            reader.var = f"self.{attr}"
            if kwarg(reader.call, "max_batch_size") is None:
                # get_metadata() (the object answers it, asked here or not) before the first epoch would otherwise
                # freeze the batch size at 1
                reader.call = with_kwarg(reader.call, "max_batch_size", expr("self.batch_size"))
            desc.extra["reader_alternatives"][attr] = _alternatives(readable[attr], site_kwargs[attr], reader, desc,
                                                                    env)
    elif desc.readers:
        _hoist_reader(unroller, desc, graph, attributes.names)
    assigned = _SelfTargets()  # (an attribute of the class's own by one of those names is the class's)
    for cls in {*chain, *subclasses}:
        walk(cls, assigned)
    for name, method in methods.items():
        if name in ("__init__", "define_graph", ITER_SETUP):
            continue
        used = sorted(m for m in _PIPELINE_ONLY if m not in assigned.names and m not in methods
                      and _AttrUses.count_in(method, m))
        if used:
            raise CannotUnroll(f"{name}() uses the pipeline's {', '.join(f'self.{m}' for m in used)}, which the "
                               f"migrated class ({STREAM_CLASS}) does not have", method)
    read_attrs = reader_attrs + [attr for _, _, attr, is_object, _ in desc.extra.get("init_branch_readers", ())
                                 if is_object]
    for attr in read_attrs:
        for name, method in methods.items():
            if name not in ("__init__", "define_graph") and _AttrUses.count_in(method, attr) and not (
                    name in reader_helpers and methods.get(name) is not None):  # (its read moved to the steps)
                # epoch_size()/reader_meta() of the migrated class answer from it; the object itself is another
                raise CannotUnroll(f"self.{attr} (an ops reader) is used by {name}() too: it becomes an ndd reader "
                                   f"there, not the ops object (ask the pipeline's epoch_size()/reader_meta() "
                                   f"instead)", method)
    for reader, condition, attr, is_object, inner in desc.extra.get("init_branch_readers", ()):
        # (an ops object's arguments are those __init__ gave it; its condition matters for its name alone)
        parts = ([] if is_object else [(reader.call, "its arguments")]) + \
            ([(condition, "its condition")] if reader.name is not None or not is_object else [])
        _check_init_time(parts, inner, chain, graph)
    desc.extra.update(reader_attr=reader_attrs[0] if reader_attrs else None, reader_attrs=reader_attrs, graph=graph)
    desc.extra["inherited_readers"] = [attr for attr in reader_attrs if attr in inherited_readers]
    if subclasses:  # the readers this class creates for its subclasses' define_graph, not read by its own
        desc.extra["base_readers"] = {attr: _base_reader_call(obj, env, desc) for attr, obj in objects.items()
                                      if obj.is_reader and attr not in reader_attrs}
    if init is not None:
        _checkpointing(desc, init, objects)
    _kept_elsewhere(unroller, node, chain, subclasses)
    return desc


def _branch_readers(node: cst.If, objects: dict, desc: PipelineDesc, reader_attrs: list, positions) -> cst.If:
    """``node`` (an ``if`` of define_graph on a build-time value) with each ``x = self.R(...)`` of an ops reader
    object R in its blocks written as ``x = ndd.readers.X(<R's arguments>, <the call's>)``, listed in
    ``desc.extra["branch_object_readers"]`` for graph._conditional_if: R is created in __init__ as before, the
    steps read its stream under the same condition."""
    found = desc.extra.setdefault("branch_object_readers", {})
    replacements, made = {}, []
    for block in conditional.branches(node):
        for inner in block.body:
            obj = _reader_call(inner, objects)
            if obj is None:
                continue
            if obj.attr in reader_attrs or obj.attr in [attr for attr, *_ in found.values()] + [a for a, *_ in made]:
                raise CannotUnroll(f"self.{obj.attr} is called twice in define_graph", inner)
            if obj.others or obj.chosen is not None or obj.made_by is not None:
                raise CannotUnroll(f"self.{obj.attr}, a reader chosen in __init__, is called under an `if` of "
                                   f"define_graph", inner)
            call = inner.body[0].value
            if any(a.keyword is None or a.star for a in call.args):
                raise CannotUnroll(f"self.{obj.attr}(...) called with positional arguments", inner)
            merged = _normalise_commas(cst.Call(func=ndd_attr(obj.entry["ndd"]),
                                                args=[*obj.call.args, *call.args]))
            replacements[inner] = [inner.with_changes(body=[inner.body[0].with_changes(value=merged)])]
            made.append((obj.attr, inner, merged, obj))
    if not replacements:
        return node
    node = transform(node, _InitRewrite(replacements), layout=False)
    for attr, inner, merged, obj in made:
        new = replacements[inner][0]  # (with the leading lines _InitRewrite gave it)
        if inner in positions:
            positions.setdefault(new, positions[inner])
        found[new] = (attr, new.body[0].targets[0].target, merged, obj.fn_path, obj.entry)
    return node


def _check_init_time(parts: list, inner, chain: list, graph: cst.FunctionDef) -> None:
    """CannotUnroll unless the reader's call and its condition read the same at the end of ``__init__`` as in
    define_graph: only self's attributes that an ``__init__`` of the class sets, and names neither ``__init__``
    nor define_graph binds (module names)."""
    inits = [_methods(cls)["__init__"] for cls in chain if "__init__" in _methods(cls)]
    set_in_init, bound = _SelfTargets(), AssignedNames()
    for init in inits:
        walk(init, set_in_init)
        walk(init, bound)
    walk(graph, bound)
    params = {p.name.value for init in inits for p in [*init.params.params, *init.params.kwonly_params]}
    for part, what in parts:
        attributes, names = _SelfAttributes(), NameReads()
        walk(cst.Expr(part), attributes)
        walk(cst.Expr(part), names)
        unset = attributes.names - set_in_init.names - set(_POSITIONAL) - {m for c in chain for m in _methods(c)}
        local = (names.names - {"self"}) & (bound.names | params)
        if unset or local:
            shown = ", ".join(sorted([f"self.{a}" for a in unset] + sorted(local)))
            raise CannotUnroll(f"a reader under an `if` of define_graph is created in __init__, but {what} read "
                               f"{shown}, which __init__ does not set or binds itself", inner)


def _base_reader_call(obj: _OpsObject, env: Env, desc: PipelineDesc) -> cst.Call:
    """The protocol of a reader object a base class creates in ``__init__`` for its subclasses' define_graph
    (``self.input = ops.readers.File(...)``, or a reader maker's call): it becomes the ndd reader created there,
    once, with the constructor's arguments, ``max_batch_size=self.batch_size``, and the pipeline seed where it
    shuffles without a seed of its own (``make_reader``), as a subclass's own reader is created. A subclass
    whose define_graph calls it (by a statement of its own, with name= only) iterates it and lists it by that
    name in ``self._readers`` in its own ``__init__``."""
    if obj.others or obj.chosen is not None:
        raise CannotUnroll(f"self.{obj.attr}: a base class's __init__ creates one reader or another by a condition",
                           obj.statement)
    call = _normalise_commas(cst.Call(func=ndd_attr(obj.entry["ndd"]), args=list(obj.call.args)))
    made = make_reader(call, None, obj.entry, cst.Name(obj.attr), env, desc, f"self.{obj.attr}", obj.statement).call
    if kwarg(made, "max_batch_size") is None:
        made = with_kwarg(made, "max_batch_size", expr("self.batch_size"))
    return made


class _ReaderObjectCalls(cst.CSTVisitor):
    def __init__(self, readers):
        self.readers, self.found = readers, False

    def visit_Call(self, node):
        self.found |= _self_attr(node.func) in self.readers


def _reads_reader_object(node, objects: dict) -> bool:
    """``node`` calls one of the class's ops reader objects (``self.input(...)``): only a statement of its own in
    define_graph's body reads one (``_reader_call``), not one inside an ``if``."""
    calls = _ReaderObjectCalls({attr for attr, obj in objects.items() if obj.is_reader})
    walk(node, calls)
    return calls.found


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


def _split_readers(statement, objects: dict) -> list:
    """``x, y = self.input_x(...), self.input_y(...)`` as one statement per reader object called; any other
    statement alone."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Assign) and len(statement.body[0].targets) == 1):
        return [statement]
    target, value = statement.body[0].targets[0].target, statement.body[0].value
    if not (isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple)
            and len(target.elements) == len(value.elements) > 1
            and not any(isinstance(e, cst.StarredElement) for e in [*target.elements, *value.elements])):
        return [statement]
    parts = [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(t.value)], v.value)])
             for t, v in zip(target.elements, value.elements)]
    if not any(_reader_call(part, objects) for part in parts):
        return [statement]
    return [parts[0].with_changes(leading_lines=statement.leading_lines), *parts[1:]]


def _alternatives(obj: _OpsObject, site_kwargs, first, desc: PipelineDesc, env: Env) -> list:
    """The other readers __init__ may put in the reader's attribute (``obj.others``), each as its ndd constructor
    with the arguments define_graph's call added, as the first one got them (``make_reader``)."""
    found = []
    for call, statement, entry in obj.others:
        merged = _normalise_commas(cst.Call(func=ndd_attr(entry["ndd"]), args=[*call.args, *site_kwargs]))
        spec = make_reader(merged, None, entry, first.target, env, desc, first.var, statement)
        made = spec.call
        if kwarg(made, "max_batch_size") is None:
            made = with_kwarg(made, "max_batch_size", expr("self.batch_size"))
        if spec.name != first.name:
            raise CannotUnroll(f"self.{obj.attr} holds readers of different names depending on a condition", statement)
        found.append((statement, made))
    return found


def _hoist_reader(unroller, desc: PipelineDesc, graph: cst.FunctionDef, attributes: set[str]) -> None:
    """An fn reader called in define_graph is created at the end of ``__init__`` instead, as an ops reader object
    is: the object answers epoch_size()/reader_meta() before its first step, as the built pipeline did. Only
    when its arguments read nothing that define_graph computes (self's attributes and module names are the same
    at the end of ``__init__`` as when build() called define_graph); otherwise it stays a local of the steps."""
    reader = desc.readers[0]
    reads, bound = NameReads(), AssignedNames()
    walk(reader.call, reads)
    walk(graph, bound)
    if reads.names & bound.names:
        return
    attr = free_name("reader", attributes)
    reader.var = f"self.{attr}"
    if kwarg(reader.call, "max_batch_size") is None:
        reader.call = with_kwarg(reader.call, "max_batch_size", expr("self.batch_size"))
    desc.extra["hoisted_reader"] = attr


def _checkpointing(desc: PipelineDesc, init: cst.FunctionDef, objects) -> None:
    """enable_checkpointing=True: the checkpoint travels through __init__ (the parameter forwarded to
    Pipeline(checkpoint=...), else a new ``checkpoint=None``) into ``self.checkpoint``; the readers get
    enable_checkpointing=True. Left marked when a stateful object cannot be registered by name."""
    if not checkpoints.enabled(desc.config):
        return
    names = [p.name.value for p in [*init.params.params, *init.params.kwonly_params]]
    saved = desc.config.get("checkpoint")
    why = None
    if saved is not None and not (isinstance(saved, cst.Name) and saved.value in names):
        why = f"Pipeline(checkpoint={code_of(saved)}) is not a parameter of __init__"
    elif saved is None and checkpoints.PARAM in names:
        why = f"__init__ already has a {checkpoints.PARAM} parameter that the pipeline does not get"
    for obj in objects.values():
        parts = [p[3] for p in obj.entry.get("compose", ())]  # ops.Compose: the seeds are its operators'
        if obj.random and not obj.inline and any(kwarg(c, "seed") is not None
                                                 for c in [obj.call, *parts, *(o[0] for o in obj.others)]):
            why = f"self.{obj.attr} has its own seed inside a lambda: its RNG cannot be registered by name"
    if why is not None:
        desc.extra["checkpoint_unmigrated"] = why
        return
    desc.extra["checkpoint"] = True
    desc.extra["checkpoint_param"] = saved.value if saved is not None else checkpoints.PARAM
    desc.extra["checkpoint_added"] = saved is None
    for reader in desc.readers:
        reader.call = checkpoints.reader_call(reader.call)


def _reader_call(statement, objects):
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Assign) and isinstance(statement.body[0].value, cst.Call)):
        return None
    func = statement.body[0].value.func
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self" \
            and func.attr.value in objects and objects[func.attr.value].is_reader:
        return objects[func.attr.value]
    return None


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
        init = cst.parse_statement("def __init__(self, *args, **kwargs):\n    super().__init__(*args, **kwargs)\n")
    elif init is not None:
        init = transform(init, _InitRewrite(replacements), layout=False)
    inherited_readers = desc.extra.get("inherited_readers", ())
    named = [(reader.name, attr) for reader, attr in zip(desc.readers, desc.extra.get("reader_attrs", ()))
             if attr in inherited_readers and reader.name is not None]
    if named:  # the base created them: listed by the names this class's define_graph gave them
        if init is None:
            init = cst.parse_statement("def __init__(self, *args, **kwargs):\n    super().__init__(*args, **kwargs)\n")
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
            init = cst.parse_statement("def __init__(self, *args, **kwargs):\n    super().__init__(*args, **kwargs)\n")
        init = init.with_changes(body=init.body.with_changes(body=[*init.body.body, *branch_readers]))
    sources = _hoisted_sources(desc, original)
    if sources:
        if init is None:  # a subclass with only define_graph: its sources need an __init__
            init = cst.parse_statement("def __init__(self, *args, **kwargs):\n    super().__init__(*args, **kwargs)\n")
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


__all__ = ["describe_class", "emit_class"]
