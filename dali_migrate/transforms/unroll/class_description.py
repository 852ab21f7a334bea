"""Pipeline subclasses with define_graph, and the legacy ``ops.*`` objects they hold: reading one (``describe_class``).

``class P(Pipeline)`` becomes ``class P(ReaderStream)`` with the same ``__init__`` signature:
``super().__init__`` turns into attributes (batch_size, num_threads, device_id, seed), the reader ops object
into the ndd reader (created once, in ``__init__``, and listed by its name in ``self._readers``), and
``define_graph`` into a generator that yields one step per former ``pipe.run()``. The instance is the
pipeline, as before: ``next(pipe)`` gives the next step, and ``epoch_size``/``reader_meta``/``max_batch_size``
answer from its reader (``stream.py``). Other ops objects become ndd calls with the same arguments: inline
in ``steps`` when their arguments are constants, else a lambda built in ``__init__`` (so arguments
computed there keep their values, as the ops object kept them). Removed classes such as
``ops.nvJPEGDecoder`` or ``ops.FileReader`` map through the op table.

``describe_class`` reads a class into a ``PipelineDesc``, or raises CannotUnroll with the reason it stays in
pipeline mode: its ``super().__init__`` options, its ops objects (``class_ops_objects``), its hierarchy
(``class_hierarchy``), its external sources (``class_sources``), its methods that call reader objects
(``class_reader_methods``), its methods named like define_graph (``class_renames``), and define_graph's
statements as the graph builder takes them (``graph.build_graph``). ``class_writing.emit_class`` writes the
migrated class from the description.
"""

from __future__ import annotations

import libcst as cst

from ...walk import transform, walk
from ...dataflow import STREAM_CLASS
from ...names import NDD, free_name
from . import checkpoints, conditional, rules
from .class_common import (_STEP_OPTIONS, _STREAM_ATTRIBUTES, _AttrUses, _InitRewrite, _SelfAttributes, _SelfTargets,
                           _methods, _normalise_commas, _self_attr)
from .class_hierarchy import _across_modules, _hierarchy, _imports_of, _kept_elsewhere, filled_instances
from .class_ops_objects import COMPOSE_PATH, _GraphCalls, _OpsObject, _collect_objects, _reader_makers
from .class_reader_methods import _graph_with_reader_reads, _hierarchy_readers, _reader_helpers
from .class_renames import _graph_helper_names
from .class_sources import FEED_INPUT, ITER_SETUP, _feeds
from .graph import build_graph, make_reader
from .outputs import closing_returns, output_elements
from .step_calls import Env, argument_inputs_alike
from .model import (PIPELINE_CLS, AssignedNames, CannotUnroll, NameReads, PipelineDesc, code_of, expr, kwarg, stmt,
                    with_kwarg, ndd_attr)

EPOCH_ENDED = "iter_setup() ended the epoch: pipe.run() raised StopIteration until pipe.reset()"
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


__all__ = ["describe_class"]
