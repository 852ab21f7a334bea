"""Legacy ops objects made in a ``@pipeline_def`` body and called there.

A pipeline function may make operator objects itself and call them, as a Pipeline subclass does in
``__init__`` and ``define_graph``::

    @pipeline_def                                         (in the generator's steps)
    def pipe(files, size):                                images = ndd.crop(images, crop_pos_x=
        seed = random.randint(1, 1000)                        ndd.random.uniform(range=(0.0, 1.0), rng=rng_1,
        ...                                          ->           batch_size=batch_size),
        crop = ops.Crop(crop=size)                            crop=size)
        uniform = ops.random.Uniform(range=(0.0, 1.0), seed=seed)
        images = crop(images, crop_pos_x=uniform(), seed=seed)

In pipeline mode each *call* of an ops object adds an operator of its own to the graph, with the object's
constructor arguments and the call's: the same as the ``fn`` call with both (docs/dali-facts.md). So each
call becomes that ndd call, written where the call was, and the object's statement goes: a seeded random
object called twice is two operators with the same seed, which draw the same values (VERIFIED), and becomes
two ``ndd.random.RNG(seed=...)`` made once by the generator (``step_calls.fix_random_call``), which draw the same
values too. ``seed=`` given to the call of an operator that draws nothing (``crop(..., seed=seed)``) is
ignored by pipeline mode (a DeprecationWarning) and a TypeError in ndd: it is dropped.

Only where the call can stand for the object: the object's name is bound once, by its statement at the top
of the body, and used only as a callee after it; a random one not in a loop (each pass made an operator of its
own, with its own stream from the seed, which one ndd call site with one RNG cannot be); its constructor's
arguments make no call and read no name the body binds from that statement on (the same values at each call as
when the object was made); no call gives an argument the constructor gave, or ``seed=`` to a random operator;
not a reader, an external source or a Compose. Anything else stays as it was (DM105 marks it, DM230 keeps the
pipeline).
"""

from __future__ import annotations

import libcst as cst

from ... import optable
from ...walk import transform, walk
from . import rules
from .model import AssignedNames, NameReads, code_of, kwarg, ndd_attr, ops_path

_DROPPED = ("name", "preserve", "bytes_per_sample_hint")  # ndd rejects them; none changes what an op computes


def _bound(statements) -> set[str]:
    """The names the statements bind in any way, or store through (``x.a = v``, ``x[k] = v``)."""
    bound = AssignedNames()
    for statement in statements:
        walk(statement, bound)
    return bound.names | bound.stored


class _Callees(NameReads):
    """Each Name node of ``wanted`` and the call it is the callee of (None for any other use)."""

    def __init__(self, wanted):
        super().__init__()
        self.wanted = wanted
        self.callee_of: dict[cst.Name, cst.Call] = {}

    def visit_Call(self, node):
        super().visit_Call(node)
        if isinstance(node.func, cst.Name):
            self.callee_of[node.func] = node

    def uses(self):
        return [(n, self.callee_of.get(n)) for n in self.nodes if n.value in self.wanted]


class _Repeated(cst.CSTVisitor):
    """The calls of ``wanted`` names made inside a loop, a comprehension, a lambda or a nested function: pipeline
    mode made an operator at each pass (each its own stream from the same seed), one call site cannot."""

    _KINDS = (cst.For, cst.While, cst.BaseComp, cst.Lambda, cst.FunctionDef)

    def __init__(self, wanted):
        self.wanted = wanted
        self.depth = 0
        self.names: set[str] = set()
        self.calls: list[cst.Call] = []

    def on_visit(self, node):
        if isinstance(node, self._KINDS):
            self.depth += 1
        if self.depth and isinstance(node, cst.Call) and isinstance(node.func, cst.Name) \
                and node.func.value in self.wanted:
            self.names.add(node.func.value)
            self.calls.append(node)
        return True

    def on_leave(self, original_node):
        if isinstance(original_node, self._KINDS):
            self.depth -= 1


class _Object:
    def __init__(self, name, index, statement, call, ops, fn_entry):
        self.name, self.index, self.statement, self.call = name, index, statement, call
        self.ops, self.entry = ops, fn_entry

    @property
    def random(self) -> bool:
        return bool(self.entry.get("random"))

    def ctor_args(self):
        return [a for a in self.call.args if a.keyword is None or a.keyword.value not in _DROPPED]


def _candidate(statement, index, imports, params) -> _Object | None:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 \
            or not isinstance(assign.targets[0].target, cst.Name) or not isinstance(assign.value, cst.Call):
        return None
    name, call = assign.targets[0].target.value, assign.value
    path = ops_path(imports, call.func)
    if path is None or name in params or path in ("ExternalSource", "Compose"):
        return None
    entry = optable.ops_class(path)
    if not entry or not entry.get("fn"):
        return None
    fn_path = optable.resolve_fn(entry["fn"])[1] or entry["fn"]
    _, _, fn_entry = optable.resolve_fn(fn_path)
    if not fn_entry or not fn_entry.get("ndd") or fn_entry.get("kind") == "reader" or fn_entry.get("compose"):
        return None
    if any(a.star or a.keyword is None for a in call.args):
        return None
    walk(call, reads := NameReads())
    if reads.calls > 1:  # (the constructor itself is one)
        return None
    return _Object(name, index, statement, call, path, fn_entry)


class _Inline(cst.CSTTransformer):
    def __init__(self, objects: dict[str, _Object]):
        super().__init__()
        self.objects = objects

    def leave_Call(self, original_node, updated_node):
        func = updated_node.func
        if not isinstance(func, cst.Name) or func.value not in self.objects:
            return updated_node
        obj = self.objects[func.value]
        args = [a for a in updated_node.args if obj.random or a.keyword is None or a.keyword.value != "seed"]
        args = [*args, *obj.ctor_args()]
        fixed = []
        for i, a in enumerate(args):
            if i < len(args) - 1 and not isinstance(a.comma, cst.Comma):
                a = a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            elif i == len(args) - 1:
                a = a.with_changes(comma=cst.MaybeSentinel.DEFAULT)
            fixed.append(a)
        return cst.Call(func=ndd_attr(obj.entry["ndd"]), args=fixed)


def inline(statements: list, params, imports, report) -> list:
    """``statements`` (a ``@pipeline_def`` body) with the ops objects it makes and calls written as one ndd call
    per call, and their statements removed; the others as they were."""
    objects: dict[str, _Object] = {}
    for index, statement in enumerate(statements):
        found = _candidate(statement, index, imports, set(params))
        if found is not None:
            objects[found.name] = None if found.name in objects else found  # made twice: not handled
    objects = {k: v for k, v in objects.items() if v is not None}
    if not objects:
        return statements
    uses = _Callees(set(objects))
    for statement in statements:
        walk(statement, uses)
    calls: dict[str, list[cst.Call]] = {name: [] for name in objects}
    for node, call in uses.uses():
        obj = objects.get(node.value)
        if obj is None:
            continue
        if node is obj.call.func or node is obj.statement.body[0].targets[0].target:
            continue
        if call is None:
            obj.index = -1  # used as a value, or bound again: stays an object
        else:
            calls[node.value].append(call)
    repeated = _Repeated({name for name, obj in objects.items() if obj.random})
    for statement in statements:
        walk(statement, repeated)
    later_bound: dict[int, set[str]] = {}
    for name, obj in list(objects.items()):
        if obj.index < 0 or name in repeated.names:
            del objects[name]
            continue
        if obj.index not in later_bound:
            later_bound[obj.index] = _bound(statements[obj.index + 1:])
        reads = NameReads()
        for arg in obj.call.args:
            walk(arg.value, reads)
        ctor_keys = {a.keyword.value for a in obj.call.args}
        before = _bound(statements[:obj.index])
        generators = {"batch_size", "seed", "num_threads", "device_id", "prefetch_queue_depth", "rng"}
        shadowed = (reads.names & generators) - before - set(params)  # the generator's own, once inlined
        if reads.names & later_bound[obj.index] or shadowed or name in before or any(
                any(a.star for a in c.args) or (obj.random and kwarg(c, "seed") is not None)
                or {a.keyword.value for a in c.args if a.keyword is not None} & (ctor_keys - {"seed"})
                for c in calls[name]):
            del objects[name]
    if not objects:
        return statements
    # a call inside another object's call (crop(x, pos=uniform())) is rewritten with it
    out = []
    for statement in statements:
        if any(statement is obj.statement for obj in objects.values()):
            obj = next(o for o in objects.values() if statement is o.statement)
            n = len(calls[obj.name])
            report(rules.UNROLL.id, f"{obj.name} = {code_of(obj.call.func)}(...): "
                   + (f"each of its {n} calls becomes an ndd.{obj.entry['ndd']} call with its arguments, one operator "
                      f"each as in pipeline mode" if n else "never called, so it added nothing to the graph: removed")
                   + ("; seed= on a call of it is dropped (pipeline mode ignores it: the operator draws nothing)"
                      if not obj.random and any(kwarg(c, "seed") is not None for c in calls[obj.name]) else ""),
                   statement)
            if statement.leading_lines:
                comments = [line for line in statement.leading_lines if line.comment is not None]
                if comments:
                    out.append(("comments", comments))
            continue
        new = transform(statement, _Inline(objects), layout=False)
        while out and isinstance(out[-1], tuple):
            new = new.with_changes(leading_lines=[*out.pop()[1], *new.leading_lines])
        out.append(new)
    return [s for s in out if not isinstance(s, tuple)]
