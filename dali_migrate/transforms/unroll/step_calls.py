"""How each call of a pipeline's step is rewritten for dynamic mode, and ``Env``, what those rewrites know of
where the code will live.

``_RandomFixer`` takes one statement of a step through every call rewrite: ``types.Constant``/``fn.constant``
(``constants.py``), Python operators called on the data (``python_functions.py``), arguments dynamic mode would read
differently (``argument_inputs_alike``: the pipeline stays), graph helpers given the pipeline's RNGs
(``graph_functions.seeded_call``), and random and input-less operators (``fix_random_call``): ``batch_size=`` on
input-less random and transform ops, per-op ``seed=`` into ``rng=`` (one ``ndd.random.RNG`` per pass of a
``for i in range(n)``, ``_passes``). ``graph.build_graph`` runs it over the statements it keeps.
"""

from __future__ import annotations

import libcst as cst

from ...walk import walk
from ... import argument_inputs, optable
from ..imports import numpy_name, request_numpy
from . import checkpoints, constants, graph_functions, python_functions, rules
from .model import (AssignedNames, CannotUnroll, NameReads, PipelineDesc, code_of, expr, fn_path, kwarg, ndd_path_of,
                    ndd_entry, op_entry, ops_fn_entry, with_kwarg, without_kwargs)


class Env:
    """What the graph rewrite needs to know about where the code will live."""

    def __init__(self, ctx, reporter, *, batch_size: str, seed: str, rng_mode: bool, prefix: str = "",
                 rng_counter=None):
        self.ctx = ctx
        self.reporter = reporter  # callable(rule_id, message, node)
        self.batch_size = batch_size  # "batch_size" or "self.batch_size"
        self.seed = seed  # "seed" or "self.seed"
        self.rng_mode = rng_mode  # the program uses RNG objects instead of set_seed
        self.prefix = prefix  # "" or "self."
        self.rng_counter = rng_counter if rng_counter is not None else [0]
        self.current = None  # the statement being rewritten: findings on new nodes point at it

    def report(self, rule_id, message, node):
        if node is None or node not in self.ctx.positions:
            node = self.current
        self.reporter(rule_id, message, node)


def _dali_call_path(imports, call: cst.Call):
    """("fn", path) / ("ndd", path) for a DALI op call, else None."""
    path = fn_path(imports, call.func)
    if path is not None:
        return "fn", path
    path = ndd_path_of(imports, call.func)
    if path is not None:
        return "ndd", path
    return None


def _entry_for(kind: str, path: str):
    if kind == "fn":
        return op_entry(path)
    return ndd_entry(path)


def argument_inputs_alike(call: cst.Call, env: Env, path: str | None = None) -> None:
    """An fn operator in a step (or the ops object ``call`` makes, of fn ``path``) whose argument dynamic mode would
    read differently (a value the call site does not show to be constant, of a spelling measured to differ; or one
    the operator fails on at some batch sizes: argument_inputs.py) keeps the pipeline in pipeline mode."""
    path = path or fn_path(env.ctx.imports, call.func)
    if path is None:
        return
    ndd_path = optable.resolve_fn(path)[0]
    differ = optable.argument_inputs_differ(ndd_path) if ndd_path else {}
    for arg in call.args:
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword not in differ:
            continue
        if argument_inputs.rewritten_elsewhere(ndd_path, keyword):
            continue  # the arguments pass rewrites these where it can (DM114, DM116) and marks the rest
        why = argument_inputs.reason(keyword, arg.value, code_of(arg.value), ndd_path, differ[keyword],
                                     env.ctx.facts.get("flow"), env.ctx.imports)
        if why:
            # (raised as made: an exception held in a local of the frame it leaves keeps that frame, and the tree,
            # in a reference cycle)
            raise CannotUnroll(why, arg, rule=rules.ARGUMENT_INPUT_RULE)


class _RandomFixer(constants.Rewriter):
    """batch_size= on input-less ops, seed= -> rng=, and constants (``constants.py``), inside one pipeline step."""

    def __init__(self, env: Env, desc: PipelineDesc):
        super().__init__(env.ctx.imports, env.batch_size, lambda original, found: env.report(
            rules.CONSTANT.id, f"{code_of(original)} -> {code_of(found)}", original), env.ctx)
        self.env = env
        self.desc = desc

    def leave_Call(self, original_node, updated_node):
        is_constant, found = self.constant(original_node)
        if is_constant:
            return found or updated_node
        if python_functions.kind_of(self.env.ctx.imports, original_node) is not None:
            return self._python_function(original_node, updated_node)
        argument_inputs_alike(original_node, self.env)
        updated_node = graph_functions.seeded_call(original_node, updated_node, self.env, self.desc)
        return fix_random_call(original_node, updated_node, self.env, self.desc)

    def _python_function(self, original_node, updated_node):
        """The function called on the data (python_functions.py); left for the rename pass to mark when it cannot be."""
        ctx = self.env.ctx
        numpy = numpy_name(ctx)
        found = python_functions.rewrite(ctx.imports, updated_node, numpy)
        if found is None:
            return updated_node
        if f"{numpy}." in code_of(found):
            request_numpy(ctx, numpy)
        ctx.facts["uses_ndd"] = True
        self.env.report(rules.PYTHON_FUNCTION.id, f"{code_of(original_node.func)}(...) -> {code_of(found)}",
                        original_node)
        return found

    def on_leave(self, original_node, updated_node):
        result = super().on_leave(original_node, updated_node)
        # keep the original line for findings that later passes report on rewritten nodes
        position = self.env.ctx.positions.get(original_node)
        if position is not None and isinstance(result, cst.CSTNode) and result is not original_node:
            self.env.ctx.positions.setdefault(result, position)
        return result


def _ops_object_entry(original: cst.Call, env: Env) -> tuple[dict | None, bool]:
    """(the fn entry, made with seed=) of the ops objects a step's call calls (``coin()``, ``self.aug.coin()``, an
    element of a list), made outside the pipelines' definitions (``dataflow.ops_objects_in``; the rename pass makes
    them callables of their ndd op); None where there are none, or they are not all of one op."""
    flow = env.ctx.facts.get("flow")
    made = flow.ops_objects_in(original.func) if flow is not None else []
    entries = {id(e): e for e in (ops_fn_entry(env.ctx.imports.qualname(c.func)[len("nvidia.dali.ops."):])[1]
                                  for c in made) if e}
    if len(entries) != 1:
        return None, False
    return next(iter(entries.values())), any(kwarg(c, "seed") is not None for c in made)


def fix_random_call(original, call: cst.Call, env: Env, desc: PipelineDesc) -> cst.Call:
    found = _dali_call_path(env.ctx.imports, call)
    if found is None:
        entry, own_seed = _ops_object_entry(original, env)
        if entry is None or not entry.get("random"):
            return call
        desc.has_random = True
        shown = f"{code_of(original.func)}() (an ops object)"
        if env.rng_mode and not own_seed and kwarg(call, "rng") is None:
            call = with_kwarg(call, "rng", expr(f"{env.prefix}rng"))  # the pipeline's stream, as its seed gave it
        return _with_batch_size(original, call, entry, shown, env)
    kind, path = found
    fn_name, entry = _entry_for(kind, path)
    if not entry:
        return call
    shown = f"{'fn' if kind == 'fn' else 'ndd'}.{path}"
    if entry.get("random"):
        desc.has_random = True
        seed = kwarg(call, "seed")
        if seed is not None:
            passes = _passes(original, seed, shown, env, desc)
            env.rng_counter[0] += 1
            name = f"{env.prefix}rng_{env.rng_counter[0]}"
            desc.rngs.append((name, seed))
            if passes is None:
                call = with_kwarg(without_kwargs(call, {"seed"}), "rng", expr(name))
                env.report(rules.OP_SEED.id, f"{shown}(seed={code_of(seed)}) -> rng={name}, an "
                           f"ndd.random.RNG(seed={code_of(seed)}) created once; values differ from pipeline mode",
                           original)
            else:
                index, count = passes
                desc.extra.setdefault("rng_passes", {})[name] = (index, count)
                call = with_kwarg(without_kwargs(call, {"seed"}), "rng", expr(f"{name}[{index}]"))
                env.report(rules.OP_SEED.id, f"{shown}(seed={code_of(seed)}) at each pass of `for {index} in "
                           f"range({code_of(count)})` -> rng={name}[{index}]: pipeline mode made an operator per "
                           f"pass, each its own stream from the seed; {name} holds one ndd.random.RNG(seed="
                           f"{code_of(seed)}) per pass, created once; values differ from pipeline mode", original)
        elif env.rng_mode and kwarg(call, "rng") is None:
            call = with_kwarg(call, "rng", expr(f"{env.prefix}rng"))
    return _with_batch_size(original, call, entry, shown, env)


def _with_batch_size(original, call: cst.Call, entry: dict, shown: str, env: Env) -> cst.Call:
    positional = [a for a in call.args if a.keyword is None and a.star == ""]
    if entry.get("input_less") and not positional and kwarg(call, "batch_size") is None \
            and not any(a.star for a in call.args):
        call = with_kwarg(call, "batch_size", expr(env.batch_size))
        env.report(rules.RANDOM_BATCH_SIZE.id,
                     f"{shown} gets batch_size={env.batch_size}: one value per sample, as in the pipeline",
                     original)
    return call


class _Around(cst.CSTVisitor):
    """The loops, comprehensions and functions around ``target`` (outermost first) in the trees walked, ``None``
    while it is not found. A ``for``'s iterable (and a comprehension's first one) is evaluated once: not inside."""

    KINDS = (cst.For, cst.While, cst.BaseComp, cst.Lambda, cst.FunctionDef)

    def __init__(self, target):
        self.target = target
        self.stack: list = []
        self.found: list | None = None

    def on_visit(self, node):
        if self.found is not None:
            return False
        if node is self.target:
            self.found = list(self.stack)
            return False
        if isinstance(node, self.KINDS):
            self.stack.append(node)
        elif isinstance(node, cst.CompFor) and self.stack and isinstance(self.stack[-1], cst.BaseComp) \
                and self.stack[-1].for_in is node and _contains(node.iter, self.target):
            self.found = self.stack[:-1]  # in the first iterable: evaluated once
            return False
        elif self.stack and isinstance(self.stack[-1], cst.For) \
                and node is self.stack[-1].iter and _contains(node, self.target):
            self.found = self.stack[:-1]
            return False
        return True

    def on_leave(self, original_node):
        if self.stack and self.stack[-1] is original_node:
            self.stack.pop()


def _contains(tree, target) -> bool:
    found = _Around(target)
    walk(cst.Expr(tree) if isinstance(tree, cst.BaseExpression) else tree, found)
    return found.found is not None


def _passes(original: cst.Call, seed, shown: str, env: Env, desc: PipelineDesc):
    """``None`` for a seeded random call made once when the graph is defined; ``(index, count)`` for one made at
    each pass of ``for index in range(count)`` (a loop or a comprehension of the pipeline body, its only one,
    ``count`` known before the steps): pipeline mode made an operator per pass, each with its own stream from the
    seed, which one RNG per pass reproduces. Any other repeated call cannot be migrated faithfully (the number
    of operators or which one a pass uses is not known before the steps): the pipeline stays, marked."""
    around = _Around(original)
    for tree in desc.extra.get("statements", ()):
        walk(tree, around)
        if around.found is not None:
            break
    loops = [n for n in around.found or () if not isinstance(n, (cst.Lambda, cst.FunctionDef))]
    if not loops:
        return None
    why = f"{shown}(seed={code_of(seed)}) in a loop or comprehension of the pipeline body: pipeline mode made one " \
          f"operator per pass, each its own random stream from that seed"
    loop = loops[0]
    if len(loops) > 1 or len(around.found) > 1:
        raise CannotUnroll(f"{why}, in nested loops (write one ndd.random.RNG per pass by hand)", original)
    if isinstance(loop, cst.For):
        target, iterable, bound = loop.target, loop.iter, AssignedNames()
        walk(loop.body, bound)
        if loop.orelse is not None or isinstance(target, cst.Name) and target.value in bound.names:
            target = None
    elif isinstance(loop, cst.BaseComp) and loop.for_in.inner_for_in is None and not loop.for_in.ifs:
        target, iterable = loop.for_in.target, loop.for_in.iter
    else:
        target = iterable = None
    count = None
    if isinstance(target, cst.Name) and isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) \
            and iterable.func.value == "range" and len(iterable.args) == 1 and iterable.args[0].keyword is None \
            and not iterable.args[0].star:
        count = iterable.args[0].value
        if not (isinstance(count, cst.Integer) or desc.style != "class" and graph_functions._made_once(count, env,
                                                                                                        desc)):
            count = None
    if count is None:
        raise CannotUnroll(f"{why}; only `for i in range(n)` with n known when the graph is defined is migrated "
                           f"(one ndd.random.RNG per pass)", original)
    reads = NameReads()
    walk(cst.Expr(seed), reads)
    inner = AssignedNames()
    walk(loop, inner)
    if reads.calls or (reads.names & inner.names) - {target.value}:
        raise CannotUnroll(f"{why}; its seed is computed in the loop", original)
    if checkpoints.enabled(desc.config):
        raise CannotUnroll(f"{why}, in a checkpointed pipeline (one RNG per pass has no name to register)", original)
    return target.value, count
