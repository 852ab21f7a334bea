"""Consumers that need a reader's metadata: epoch_size / reader_meta and the PyTorch iterators.

The reader lives inside the generator, so the metadata comes from a reader built with the same
arguments (pipeline parameters bound to the call site's values) that is never iterated: calling
get_metadata() on it cannot freeze the batch size of the reader that is (ndd-facts §1.4).
A Pipeline subclass keeps its reader as an attribute created with max_batch_size, so its own
get_metadata() is safe.
"""

from __future__ import annotations

import libcst as cst

from ...walk import transform, walk
from . import epoch_iterator, rules
from .stream import CLASS_NAME as STREAM_CLASS
from .model import (AssignedNames, CannotUnroll, NameReads, ReaderSpec, _Substitute, code_of, expr, kwarg,
                    literal_value, ops_path)


def _pipe_call(unroller, owner):
    """(pipeline name, the call that made it) for a variable bound to a pipeline here."""
    found = unroller.pipe_var(owner)
    if found is None:
        raise CannotUnroll(f"{owner} gets its pipeline from elsewhere (a factory, a parameter, a container), so "
                           f"the reader's arguments are not known here")
    return found[1], found[2]


_ITERATE_BY_HAND = "iterate the migrated generator with next() and convert each output with .torch()"


def mark_left(unroller, node, what: str, why: str, step: str):
    """A DM212 marker for a consumer left as it is: what was left, why, and the one thing to do next, in
    the words of the user's code; the step is also the finding's own suggestion (the report shows it)."""
    message = " ".join(f"{what} not migrated: {why}; {step}".split())  # a marker is one comment line
    finding = unroller.mark(rules.CANNOT_UNROLL.id, message, node)
    finding.extra["suggestion"] = step[:1].upper() + step[1:] + "."
    return finding


def _binding(unroller, owner, kind):
    """Names in the reader's arguments -> expressions valid at the consumer."""
    pipeline_name, call = _pipe_call(unroller, owner)
    if pipeline_name not in unroller.descs:
        raise CannotUnroll(f"{pipeline_name} is migrated further down than this line, so its reader is not known here")
    desc = unroller.descs[pipeline_name]
    binding: dict[str, cst.BaseExpression] = {}
    if kind == "with":
        seed = desc.config.get("seed")
        binding["seed"] = seed if seed is not None else cst.Name("None")
        return desc, binding
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if any(a.star for a in call.args):
        raise CannotUnroll(f"{owner} is built with *args/**kwargs, so the reader's arguments are not known")
    for name, arg in zip(desc.params, positional):
        binding[name] = arg.value
    for arg in call.args:
        if arg.keyword is not None:
            binding[arg.keyword.value] = arg.value
    for name, default in desc.param_defaults.items():
        binding.setdefault(name, default)
    for name in ("batch_size", "seed", "num_threads", "device_id"):
        if name not in binding:
            value = desc.config.get(name)
            if name == "seed" and value is not None and literal_value(value) == -1:
                value = None
            binding[name] = value if value is not None else cst.Name("None")
    for name, value in binding.items():
        visitor = NameReads()
        walk(value, visitor)
        if visitor.calls:
            raise CannotUnroll(f"the pipeline argument {name}={code_of(value)} is a call; evaluating it twice "
                               f"could differ")
    return desc, binding


def reader_meta_expr(unroller, owner, kind, reader_name) -> tuple[cst.BaseExpression, object]:
    """``ndd.readers.X(...).get_metadata()`` for the reader of the pipeline held in ``owner``."""
    _imported_here(unroller, owner, kind)
    if kind == "factory":
        raise CannotUnroll(f"{owner} comes from a factory function, so its reader's arguments are not known here")
    if kind == "class":
        pipeline_name, _ = _pipe_call(unroller, owner)
        desc = unroller.descs[pipeline_name]
        reader = desc.reader_named(reader_name)
        if reader is None:
            raise CannotUnroll(f"no reader named {reader_name!r} in {pipeline_name}")
        attr = reader.var.split(".", 1)[1]
        return expr(f"{owner}.{attr}.get_metadata()"), reader
    desc, binding = _binding(unroller, owner, kind)
    reader = desc.reader_named(reader_name)
    if reader is None:
        raise CannotUnroll(f"no reader named {reader_name!r} in {desc.name}")
    assigned = AssignedNames()
    for statement in [*desc.pre, *desc.loop]:
        walk(statement, assigned)
    names = NameReads()
    walk(reader.call, names)
    for name in names.nodes:
        if name.value in assigned.names and name.value not in binding:
            raise CannotUnroll(f"the reader's arguments use {name.value}, computed inside the pipeline")
    call = transform(reader.call, _Substitute(binding), layout=False)
    bound = ReaderSpec(**{**reader.__dict__, "call": call})
    return cst.Call(func=cst.Attribute(value=call, attr=cst.Name("get_metadata"))), bound


def rewrite_reader_meta(unroller, original, call, owner, kind):
    method = call.func.attr.value
    name_arg = call.args[0].value if call.args else None
    name = literal_value(name_arg) if name_arg is not None else None
    called = f"{owner}.{method}({code_of(name_arg) if name_arg else ''})"
    key = '["epoch_size_padded"]' if method == "epoch_size" else ""  # Pipeline.epoch_size counts the padding
    if unroller.streams(original.func.value) and (name_arg is not None or _readers_named(unroller, original.func.value)):
        # (a computed name too: the ReaderStream looks it up at run time, as the Pipeline did)
        unroller.report(rules.READER_META.id, f"{called} stays: the migrated pipeline ({STREAM_CLASS}) answers it "
                        f"from its reader{'' if name_arg is not None else 's'} at run time", original)
        return call
    if name_arg is not None and not isinstance(name, str):
        mark_left(unroller, original, called, "its reader name is computed, so the tool cannot tell which reader "
                  "it means", f"call get_metadata(){key} on that reader, built once more with its arguments")
        return call
    if name is None and method == "epoch_size":
        mark_left(unroller, original, called, "without a reader name it returns a dict over all readers",
                  'call get_metadata()["epoch_size_padded"] on each reader you mean, built once more with its arguments')
        return call
    try:
        meta, _ = reader_meta_expr(unroller, owner, kind, name)
    except CannotUnroll as e:
        found = unroller.pipe_var(owner)
        mark_left(unroller, original, called, e.reason,
                  f"build the reader {name!r} once more with the arguments it has in {found[1] if found else owner} "
                  f"and call its get_metadata(){key}")
        return call
    unroller.report(rules.READER_META.id, f"{owner}.{method}(...) -> reader.get_metadata()", original)
    if method == "epoch_size":
        return cst.Subscript(value=meta, slice=[cst.SubscriptElement(cst.Index(expr('"epoch_size_padded"')))])
    return meta


def _readers_named(unroller, node) -> bool:
    """Every reader of the pipelines ``node`` holds has a literal name=: asked without a name, its ReaderStream
    answers for them all, by the names pipeline mode gave (an unnamed reader had a name DALI made up). Read from
    the definition itself, which may come further down than this line; one with a legacy ops object is not
    looked into."""
    from .statement_facts import _ContainsCall

    for origin in unroller.ctx.facts["flow"].pipelines_in(node):
        block = unroller.d.with_blocks.get(origin, (unroller.d.defs.get(origin),))[0]
        if block is None:
            return False
        calls, ops = _ContainsCall(unroller.ctx.imports), _OpsCalls(unroller.ctx.imports)
        walk(block, calls)
        walk(block, ops)
        if ops.found or any(not isinstance(literal_value(kwarg(call, "name")), str) for call in calls.readers):
            return False
    return True


class _OpsCalls(cst.CSTVisitor):
    def __init__(self, imports):
        self.imports = imports
        self.found = False

    def visit_Call(self, node):
        self.found = self.found or ops_path(self.imports, node.func) is not None


def _arg(call: cst.Call, position: int, name: str):
    value = kwarg(call, name)
    if value is not None:
        return value
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return positional[position].value if position < len(positional) else None


def rewrite_torch_iterator(unroller, original, call: cst.Call, fixed_map, subclass=None, jax=False):
    """The plugin iterator ``call`` as an EpochIterator, or as the construction of ``subclass`` (a user class
    that now derives from the EpochIterator: iterator_subclass.py) with the EpochIterator's arguments."""
    which = "DALIClassificationIterator" if fixed_map else "DALIGenericIterator"
    if subclass is not None:
        which = f"{subclass}(...) (a {which} subclass)"
    pipelines = _arg(call, 0, "pipelines")
    if fixed_map:
        output_map = expr('["data", "label"]')
        size = _arg(call, 1, "size")
        reader_name = _arg(call, 2, "reader_name")
    else:
        output_map = _arg(call, 1, "output_map")
        size = _arg(call, 2, "size")
        reader_name = _arg(call, 3, "reader_name")
    owners = []
    if isinstance(pipelines, (cst.List, cst.Tuple)):
        owners = [e.value for e in pipelines.elements]
    elif pipelines is not None:
        owners = [pipelines]
    if owners and output_map is not None and all(unroller.streams(o) for o in owners):
        if subclass is not None:  # by keyword: the subclass's __init__ may name only its pipelines (pipe, **kwargs)
            output_map = _kw("output_map", output_map)
        rewritten = _iterator_over_streams(unroller, original, call, which, pipelines, output_map, reader_name, size)
        return rewritten if subclass is None else rewritten.with_changes(func=call.func)
    flow = unroller.ctx.facts.get("flow")
    if pipelines is None and subclass is None and flow is not None and flow.forwarding_call(original):
        # a wrapper's DALIGenericIterator(*args, **kwargs): whatever its callers pass there, here or in other
        # modules, is a Pipeline or a ReaderStream (dataflow.star_inputs), so it decides at run time
        return decided_at_run_time(unroller, original, call, which, fixed_map, subclass, jax)
    if subclass is not None:  # iterator_subclass.find saw ReaderStreams here: this is not expected
        mark_left(unroller, original, f"{subclass}(...)", "its pipelines are not migrated to ReaderStreams here",
                  _ITERATE_BY_HAND)
        return call
    names = [code_of(o) for o in owners]
    kinds = [unroller._pipe_kind_of(o, n) for o, n in zip(owners, names)]
    if pipelines is not None and (all(unroller.untraced(o) for o in owners) if owners else unroller.untraced(pipelines)):
        return decided_at_run_time(unroller, original, call, which, fixed_map, subclass, jax)
    if not owners or any(k is None for k in kinds) or output_map is None:
        why = ("its output_map is not given" if owners and output_map is None
               else f"the tool cannot follow {code_of(pipelines) if pipelines is not None else 'its pipelines'} to "
                    f"a pipeline it migrated in this module")
        mark_left(unroller, original, f"{which}(...)", why, _ITERATE_BY_HAND)
        return call
    owner, kind = names[0], kinds[0][0]
    try:
        batch_size = _batch_size(unroller, owner, kind)
        meta = None
        if reader_name is not None:
            name = literal_value(reader_name)
            if not isinstance(name, str):
                raise CannotUnroll(f"reader_name={code_of(reader_name)} is computed, so the tool cannot tell which "
                                   f"reader it names")
            metas = [reader_meta_expr(unroller, n, k[0], name)[0] for n, k in zip(names, kinds)]
            meta = metas[0] if len(metas) == 1 else cst.List([cst.Element(m) for m in metas])
        policy = _policy(unroller, call)
    except CannotUnroll as e:
        mark_left(unroller, original, f"{which}(...)", e.reason, _ITERATE_BY_HAND)
        return call

    args = [cst.Arg(pipelines), cst.Arg(output_map), _kw("batch_size", batch_size)]
    if meta is not None:  # (reader_name too: the plugin's _reader_name, which code may read)
        args += [_kw("reader_name", reader_name), _kw("reader_meta", meta)]
    else:
        args.extend(_size_options(unroller, original, call, which, size, pipelines))
    args.extend(_epoch_options(call, policy))
    unroller.need_epoch_iterator = True
    unroller.report(rules.TORCH_ITERATOR.id, f"{which} -> {epoch_iterator.CLASS_NAME} ({_shown(policy)}), written into "
                    f"this module", original)
    return cst.Call(func=cst.Name(epoch_iterator.CLASS_NAME), args=_commas(args))


def _iterator_over_streams(unroller, original, call, which, pipelines, output_map, reader_name, size):
    """The iterator over migrated pipelines that answer their metadata at run time (ReaderStream): the
    EpochIterator asks the first for the batch size and, with reader_name, each for its reader's metadata
    (its shard)."""
    try:
        policy = _policy(unroller, call)
    except CannotUnroll as e:
        mark_left(unroller, original, f"{which}(...)", e.reason, _ITERATE_BY_HAND)
        return call
    args = [cst.Arg(pipelines), output_map if isinstance(output_map, cst.Arg) else cst.Arg(output_map)]
    if reader_name is not None:
        args.append(_kw("reader_name", reader_name))
        asks = "its reader's epoch size"
    else:
        args.extend(_size_options(unroller, original, call, which, size, pipelines))
        asks = "its batch size"
    args.extend(_epoch_options(call, policy))
    unroller.need_epoch_iterator = True
    unroller.report(rules.TORCH_ITERATOR.id, f"{which} -> {epoch_iterator.CLASS_NAME} ({_shown(policy)}): it asks the "
                    f"migrated pipeline ({STREAM_CLASS}) for {asks} at run time", original)
    return cst.Call(func=cst.Name(epoch_iterator.CLASS_NAME), args=_commas(args))


def decided_at_run_time(unroller, original, call: cst.Call, which: str, fixed_map, subclass=None, jax=False):
    """The plugin iterator ``call`` over pipelines the tool cannot trace, as the EpochIterator (or the construction
    of ``subclass``, which derives from it) with the same arguments: it takes the plugin's signature and decides
    when it is made whether the pipelines are pipeline-mode Pipelines (then it is the plugin's iterator) or
    migrated ones (DM241). DALIClassificationIterator's fixed output map goes in as the second argument; policy
    members become their names."""
    args = list(call.args)
    func = call.func if subclass is not None else cst.Name(epoch_iterator.CLASS_NAME)
    if fixed_map:
        positional = [i for i, a in enumerate(args) if a.keyword is None]
        names = expr(repr(fixed_map).replace("'", '"'))
        if positional and not args[positional[0]].star:
            _insert_after(args, positional[0], cst.Arg(names))
        elif not positional and args and kwarg(call, "output_map") is None and not any(a.star == "**" for a in args):
            _insert_after(args, len(args) - 1, _kw("output_map", names))
        elif subclass is None and not jax and fixed_map == ["data", "label"]:
            # its pipelines come in *args/**kwargs: the EpochIterator's classmethod with the plugin's own signature
            func = cst.Attribute(value=func, attr=cst.Name("classification"))
        else:
            mark_left(unroller, original, f"{which}(...)", "its pipelines come in *args, so the tool cannot put "
                      "the output map after them", _ITERATE_BY_HAND)
            return call
    if jax:  # the JAX plugin's positional order differs after output_map; its sharding has no counterpart
        extra = [a for a in args if a.keyword is None][2:]
        other = [a.keyword.value for a in args if a.keyword is not None and a.keyword.value in ("sharding", "pmap_compatible")]
        if extra or other or any(a.star for a in args):
            mark_left(unroller, original, f"{which}(...)", "its arguments are given by position, in *args, or as "
                      "sharding=, which the migrated iterator does not take", _ITERATE_BY_HAND)
            return call
    for i, arg in enumerate(args):
        member = epoch_iterator.policy_member(unroller.ctx.imports, arg.value)
        if member is not None:
            args[i] = arg.with_changes(value=expr(f'"{member}"'))
        elif isinstance(arg.value, cst.IfExp):
            value = _policy_value(unroller.ctx.imports, arg.value)
            if isinstance(value, cst.IfExp):
                args[i] = arg.with_changes(value=value)
    unroller.need_epoch_iterator = True
    what = subclass or ("JaxEpochIterator" if jax else code_of(func))
    unroller.report(rules.ITERATOR_KIND_AT_RUN_TIME.id, f"{which} -> {what}: the tool cannot trace its pipelines "
                    f"({code_of(_arg(original, 0, 'pipelines') or original)}), so it decides at run time: over "
                    f"pipeline-mode Pipelines it is the plugin's iterator, over migrated ones (ReaderStream) it counts "
                    f"as the plugin does", original)
    return call.with_changes(func=func, args=args)


def _insert_after(args: list, index: int, arg: cst.Arg) -> None:
    """``arg`` after ``args[index]``, the commas kept as the call wrote them."""
    before = args[index]
    if not isinstance(before.comma, cst.Comma):
        before = before.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    args[index:index + 1] = [before, arg.with_changes(comma=args[index].comma)]


def keep_super_init(unroller, subclass, original, call: cst.Call) -> cst.Call:
    """A subclass's ``super().__init__(...)`` with *args/**kwargs: kept as written, since the EpochIterator takes
    the plugin's signature (DALIClassificationIterator's output map goes in after the pipelines)."""
    args = list(call.args)
    if subclass.fixed_map is not None:
        _insert_after(args, 0, cst.Arg(expr(repr(subclass.fixed_map).replace("'", '"'))))
    unroller.report(rules.TORCH_ITERATOR.id, f"{code_of(original.func)}(...) in {subclass.name}.__init__ stays as "
                    f"written: the {epoch_iterator.CLASS_NAME} takes the plugin's arguments", original)
    return call.with_changes(args=args)


def rewrite_super_init(unroller, subclass, original, call: cst.Call) -> cst.Call:
    """A subclass's ``super().__init__(...)`` with the plugin's arguments -> the same call with the EpochIterator's
    (iterator_subclass.py): every value is passed on as it is and read at run time, as the plugin read it."""
    from .iterator_subclass import bound_arguments

    bound = bound_arguments(subclass.base, call)
    output_map = bound.get("output_map") or expr(repr(subclass.fixed_map).replace("'", '"'))
    args = [cst.Arg(bound["pipelines"]), cst.Arg(output_map)]
    args += [_kw(name, bound[name]) for name in ("size", "reader_name", "last_batch_padded") if name in bound]
    policy = bound.get("last_batch_policy")
    if policy is not None:
        value = _policy_value(unroller.ctx.imports, policy)
        policy = policy if value == _CHOSEN else value if isinstance(value, cst.IfExp) else expr(f'"{value}"')
    fill = bound.get("fill_last_batch")  # a name or a literal (iterator_subclass._own_init)
    if fill is not None and code_of(fill) != "None":
        # the plugin: fill_last_batch, when given, decides (True FILL, False PARTIAL) whatever the policy says
        chosen = f'"FILL" if {code_of(fill)} else "PARTIAL"'
        if code_of(fill) not in ("True", "False"):
            otherwise = code_of(policy) if policy is not None else '"FILL"'
            chosen = f"({chosen}) if {code_of(fill)} is not None else {otherwise}"
        policy = expr('"FILL"' if code_of(fill) == "True" else '"PARTIAL"' if code_of(fill) == "False" else chosen)
    if policy is not None:
        args.append(_kw("last_batch_policy", policy))
    if "auto_reset" in bound:
        args.append(_auto_reset(bound["auto_reset"]))
    if "prepare_first_batch" in bound:
        args.append(_kw("prepare_first_batch", bound["prepare_first_batch"]))
    unroller.report(rules.TORCH_ITERATOR.id, f"{code_of(original.func)}(...) in {subclass.name}.__init__ -> the "
                    f"{epoch_iterator.CLASS_NAME}'s arguments (bound as the plugin binds them)", original)
    return call.with_changes(args=_commas(args))


def _size_options(unroller, original, call, which, size, pipelines) -> list[cst.Arg]:
    """EpochIterator's size= and last_batch_padded= for an iterator without reader_name. Without a size, the
    plugin read until the pipeline raised StopIteration: a migrated pipeline whose external source ends its
    epochs does the same (a ReaderStream with restart), any other never ends (marked)."""
    if (size is None or literal_value(size) == -1) and unroller.epochs_end(pipelines):
        size = expr("-1")
        unroller.report(rules.TORCH_ITERATOR.id, f"{which} without reader_name or size: each epoch lasts until the "
                        f"pipeline's external source ends it (StopIteration), and the iterator's reset() starts "
                        f"the pipeline's next epoch, as the plugin's did", original)
    elif size is None or literal_value(size) == -1:
        unroller.mark(rules.ITERATOR_DIFFERENCE.id, f"{which} without reader_name or size ran until the "
                      f"pipeline ended; the migrated pipeline never ends: pass size=", original)
        size = expr("-1")
    args = [_kw("size", size)]
    padded = kwarg(call, "last_batch_padded")
    if padded is not None:
        args.append(_kw("last_batch_padded", padded))
    return args


def _epoch_options(call: cst.Call, policy) -> list[cst.Arg]:
    """EpochIterator's last_batch_policy= and auto_reset= for the plugin iterator ``call``."""
    args = []
    if policy == _CHOSEN:
        args.append(_kw("last_batch_policy", kwarg(call, "last_batch_policy")))
    elif policy != "FILL":
        args.append(_kw("last_batch_policy", policy if isinstance(policy, cst.IfExp) else expr(f'"{policy}"')))
    auto_reset = kwarg(call, "auto_reset")
    if auto_reset is not None:
        args.append(_auto_reset(auto_reset))
    first = kwarg(call, "prepare_first_batch")  # when the first batch is read (and counted): at construction or not
    if first is not None:
        args.append(_kw("prepare_first_batch", first))
    return args


def _auto_reset(value) -> cst.Arg:
    """auto_reset= for the EpochIterator: the plugin's "yes"/"no" as True/False."""
    if literal_value(value) in ("yes", "no"):
        value = cst.Name("True" if literal_value(value) == "yes" else "False")
    return _kw("auto_reset", value)


_CHOSEN = "chosen at run time"  # passed on as it is: the EpochIterator takes a member or its name (a string)


def _policy(unroller, call):
    """The iterator's last-batch policy: "FILL", "DROP" or "PARTIAL" where the call names a LastBatchPolicy member;
    an ``IfExp`` choosing between members (``LastBatchPolicy.PARTIAL if validation else LastBatchPolicy.DROP`` ->
    ``"PARTIAL" if validation else "DROP"``); else _CHOSEN: any other expression (a variable, a parameter, an
    attribute) is passed on as it is, since the EpochIterator reads a member or its name at run time and refuses
    anything else, as the plugin does (leftovers turns the module's members into their names)."""
    fill = kwarg(call, "fill_last_batch")  # the plugin: given, it decides whatever last_batch_policy says
    if fill is not None and code_of(fill) in ("True", "False"):
        return "FILL" if code_of(fill) == "True" else "PARTIAL"
    if fill is not None and code_of(fill) != "None":
        raise CannotUnroll(f"fill_last_batch={code_of(fill)} decides the policy at run time (True FILL, False "
                           f"PARTIAL, None last_batch_policy); pass last_batch_policy= instead")
    policy = kwarg(call, "last_batch_policy")
    if policy is not None:
        return _policy_value(unroller.ctx.imports, policy)
    return "FILL"


def _shown(policy) -> str:
    return code_of(policy) if isinstance(policy, cst.CSTNode) else policy


def _policy_value(imports, policy: cst.BaseExpression):
    if isinstance(policy, cst.IfExp):
        body, orelse = _policy_value(imports, policy.body), _policy_value(imports, policy.orelse)
        if _CHOSEN in (body, orelse):
            return _CHOSEN
        if body == orelse:
            return body
        return policy.with_changes(body=body if isinstance(body, cst.IfExp) else expr(f'"{body}"'),
                                   orelse=orelse if isinstance(orelse, cst.IfExp) else expr(f'"{orelse}"'))
    return epoch_iterator.policy_member(imports, policy) or _CHOSEN


def _imported_here(unroller, owner, kind):
    if kind == "object":
        raise CannotUnroll(f"{owner} is a pipeline imported from another module, so its reader is not known here")
    found = unroller.pipe_var(owner)
    desc = unroller.descs.get(found[1]) if found else None
    if desc is not None and desc.extra.get("imported"):
        raise CannotUnroll(f"{found[1]} is defined in {desc.extra['imported'].rsplit('.', 1)[0]}, so its reader is "
                           f"not known here")


def _batch_size(unroller, owner, kind):
    if kind == "object":
        raise CannotUnroll(f"{owner} is a pipeline imported from another module, so its batch size is not known here")
    if kind == "class":
        return expr(f"{owner}.batch_size")
    if kind == "factory":
        raise CannotUnroll(f"{owner} comes from a factory function, so its batch size is not known here")
    pipeline_name, call = _pipe_call(unroller, owner)
    desc = unroller.descs.get(pipeline_name)
    if desc is None:
        raise CannotUnroll(f"{pipeline_name} is migrated further down than this line, so its batch size is not known "
                           f"here")
    if kind == "with":
        value = desc.config.get("batch_size")
    else:
        value = kwarg(call, "batch_size") or desc.config.get("batch_size")
    if value is None:
        raise CannotUnroll(f"the batch size of {owner} is not known here")
    return value


def _kw(name, value):
    return cst.Arg(keyword=cst.Name(name), value=value,
                   equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                         whitespace_after=cst.SimpleWhitespace("")))


def _commas(args):
    return [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) if i < len(args) - 1
            else a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for i, a in enumerate(args)]
