"""Graph helper functions that a migration must change with the pipelines that call them (issue 15).

Two shapes real code has (NVIDIA's detection example wraps both in functions "to reuse later"):

* **A reader function**: its body is only a reader call and the return of its outputs::

      def coco_reader():
          inputs, boxes, labels = fn.readers.coco(file_root=root, annotations_file=ann, ratio=True)
          return inputs, boxes, labels

  A dynamic-mode reader is an object created once and iterated, not a call per step, so each pipeline
  that reads through it gets the reader call itself (the function's parameters replaced by the call's
  arguments), created once before its loop: ``reader = ndd.readers.COCO(file_root=root, ...)``, its
  steps unpacked into what the call site unpacked. When no call of the function is left, its ``def`` is
  removed (it could only ever run inside a pipeline's graph).
* **Seeded random operators in a helper** (``fn.random_bbox_crop(..., seed=12345)``): in pipeline mode each
  pipeline that calls the helper builds its own operator with its own random stream from that seed. In
  dynamic mode the per-op ``seed=`` is gone (TypeError), so the helper takes the stream as a keyword-only
  parameter (``rng``, or ``rng_1``, ``rng_2`` for several) and each call site passes an
  ``ndd.random.RNG(seed=12345)`` its pipeline creates once, as the unroll does for ops in the body
  (random values differ from pipeline mode: DM205).

A function is handled only when it is defined once at the top of the module and every use of it is a
call the unroll rewrote; otherwise it stays as it was, and the rename pass marks its reader (DM104) or
its seed (DM112).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import libcst as cst

from ...names import free_name
from ...walk import transform, walk
from . import rules
from .model import (SEED_WORDS, AssignedNames, NameReads, _Substitute, code_of, expr, fn_path, kwarg, op_entry,
                    with_kwarg)

# Names the generator takes itself: a reader argument that reads a global of that name would read the
# generator's parameter once inlined.
_GENERATOR_PARAMS = {"batch_size", "seed", "num_threads", "device_id", "prefetch_queue_depth", "rng"}


@dataclass
class ReaderFunction:
    node: cst.FunctionDef
    call: cst.Call  # the fn.readers.* call in its body
    params: list[str]  # positional-or-keyword, then keyword-only
    positional: int  # how many of them a call may pass by position
    defaults: dict[str, cst.BaseExpression]


@dataclass
class SeededFunction:
    node: cst.FunctionDef
    seeds: list[cst.BaseExpression]  # each seeded random op's seed=, in order (literal ints, or parameters' names)
    params: list[str] = field(default_factory=list)  # the keyword-only parameters it gets, one per op
    positional: list[str] = field(default_factory=list)  # its parameters a call may pass by position
    keyword: list[str] = field(default_factory=list)  # its other parameters, keyword-only
    defaults: dict[str, cst.BaseExpression] = field(default_factory=dict)

    def seed_at(self, seed: cst.BaseExpression, call: cst.Call) -> cst.BaseExpression | None:
        """The value ``seed`` (an op's seed=) has in the helper when ``call`` calls it: the literal itself, or the
        argument (or default) the call binds to the parameter it names; None when the call does not say."""
        if not isinstance(seed, cst.Name):
            return seed
        found = kwarg(call, seed.value)
        if found is not None:
            return found
        positional = [a for a in call.args if a.keyword is None]
        if seed.value in self.positional and self.positional.index(seed.value) < len(positional):
            return positional[self.positional.index(seed.value)].value
        default = self.defaults.get(seed.value)
        return default if default is not None and _is_literal(default) else None


def find(module: cst.Module, imports, may_mention=None) -> tuple[dict[str, ReaderFunction], dict[str, SeededFunction]]:
    """The module's top-level reader functions and functions with seeded random operators, by name; only
    names bound once at the top of the module (a notebook cell that redefines one makes it ambiguous).
    ``may_mention(node, words)`` (``MigrationContext.may_mention``): False where the node's text has none of the
    words (a body without the word seed has no seeded op: not walked)."""
    bound: dict[str, int] = {}
    for statement in module.body:
        for name in _top_level_bindings(statement):
            bound[name] = bound.get(name, 0) + 1
    readers, seeded = {}, {}
    for statement in module.body:
        if not isinstance(statement, cst.FunctionDef) or bound.get(statement.name.value) != 1 \
                or statement.decorators or statement.asynchronous is not None:
            continue
        reader = _reader_function(statement, imports)
        if reader is not None:
            readers[statement.name.value] = reader
            continue
        if may_mention is not None and not may_mention(statement.body, SEED_WORDS):
            continue
        every = [p.name.value for p in [*statement.params.params, *statement.params.kwonly_params]]
        rebound = AssignedNames()
        walk(statement.body, rebound)
        ops = _SeededOps(imports, set(every) - rebound.names)
        walk(statement.body, ops)
        if ops.seeds and not ops.unsupported and _simple_params(statement.params):
            taken = {p.name.value for p in statement.params.params} | _names_in(statement)
            params = []
            for k in range(len(ops.seeds)):
                params.append(free_name("rng" if len(ops.seeds) == 1 else f"rng_{k + 1}", taken))
                taken.add(params[-1])
            seeded[statement.name.value] = SeededFunction(
                statement, ops.seeds, params, [p.name.value for p in statement.params.params],
                [p.name.value for p in statement.params.kwonly_params],
                {p.name.value: p.default for p in [*statement.params.params, *statement.params.kwonly_params]
                 if p.default is not None})
    return readers, seeded


def _top_level_bindings(statement) -> list[str]:
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        return [statement.name.value]
    found = []
    if isinstance(statement, cst.SimpleStatementLine):
        for small in statement.body:
            if isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                found.extend(t.value for t in targets if isinstance(t, cst.Name))
            elif isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
                for alias in small.names:
                    bound = alias.asname.name if alias.asname else alias.name
                    if isinstance(bound, cst.Name):
                        found.append(bound.value)
    return found


def _simple_params(params: cst.Parameters) -> bool:
    """No ``/``, ``*args`` or ``**kwargs`` (a bare ``*`` before keyword-only parameters is fine)."""
    return not params.posonly_params and not isinstance(params.star_arg, cst.Param) and params.star_kwarg is None


def _names_in(node) -> set[str]:
    reads = NameReads()
    walk(node, reads)
    return reads.names


def _reader_function(function: cst.FunctionDef, imports) -> ReaderFunction | None:
    """``def f(...): [docstring] targets = fn.readers.x(...); return targets`` (or ``return fn.readers.x(...)``)."""
    if not _simple_params(function.params):
        return None
    body = [s for s in function.body.body if not _is_docstring(s)]
    lines = [s.body[0] for s in body if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1]
    if len(lines) != len(body) or not 1 <= len(body) <= 2 or not isinstance(lines[-1], cst.Return):
        return None
    if len(body) == 1:
        call = lines[0].value
    else:
        assign = lines[0]
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 or lines[-1].value is None \
                or _flat_names(assign.targets[0].target) is None \
                or _flat_names(assign.targets[0].target) != _flat_names(lines[-1].value):
            return None
        call = assign.value
    if not isinstance(call, cst.Call) or any(a.star for a in call.args):
        return None
    path = fn_path(imports, call.func)
    _, entry = op_entry(path) if path is not None else (None, None)
    if not entry or entry.get("kind") != "reader":
        return None
    every = [*function.params.params, *function.params.kwonly_params]
    defaults = {p.name.value: p.default for p in every if p.default is not None}
    if any(not _is_literal(d) for d in defaults.values()):
        return None  # evaluated once, at the def; inlined it would be evaluated at each pipeline
    return ReaderFunction(function, call, [p.name.value for p in every], len(function.params.params), defaults)


def _is_docstring(statement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
        and isinstance(statement.body[0], cst.Expr) and isinstance(statement.body[0].value, cst.SimpleString)


def _flat_names(node) -> list[str] | None:
    """``a`` or ``a, b, c`` (a tuple or list of names) as names; None for anything else."""
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, (cst.Tuple, cst.List)) and all(
            isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in node.elements):
        return [e.value.value for e in node.elements]
    return None


def _is_literal(node) -> bool:
    try:
        ast.literal_eval(code_of(node))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


class _SeededOps(cst.CSTVisitor):
    """The random fn ops with a literal ``seed=``, or ``seed=<a parameter the body never rebinds>``, in a function
    body (nested functions and lambdas are not read: ``unsupported`` then, as for any other seed=)."""

    def __init__(self, imports, params=frozenset()):
        super().__init__()
        self.imports = imports
        self.params = params
        self.seeds: list[cst.BaseExpression] = []
        self.calls: list[cst.Call] = []
        self.unsupported = False

    def visit_FunctionDef(self, node):
        self.unsupported = True
        return False

    def visit_Lambda(self, node):
        self.unsupported = True
        return False

    def visit_Call(self, node):
        path = fn_path(self.imports, node.func)
        if path is None:
            return
        _, entry = op_entry(path)
        seed = kwarg(node, "seed")
        if entry and entry.get("random") and seed is not None:
            if isinstance(seed, cst.Integer) or isinstance(seed, cst.Name) and seed.value in self.params:
                self.seeds.append(seed)
                self.calls.append(node)
            else:
                self.unsupported = True


# -- at the call sites (graph.build_graph) ------------------------------------------------------------

def inline_reader(statement, env, desc, statements):
    """(target, reader call, fn name, entry) for ``targets = reader_function(args)`` in a pipeline body: the
    function's reader call with its parameters bound to the call's arguments; None when the statement is
    something else or the call cannot be inlined faithfully."""
    readers = env.ctx.facts.get("reader_functions") or {}
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if not isinstance(small, cst.Assign) or len(small.targets) != 1 or not isinstance(small.value, cst.Call) \
            or not isinstance(small.value.func, cst.Name) or small.value.func.value not in readers:
        return None
    function = readers[small.value.func.value]
    binding = _bind(function, small.value)
    if binding is None:
        return None
    # A name the reader call reads from the module must mean the same inside the generator.
    local = set(desc.params) | _GENERATOR_PARAMS
    for other in statements:
        local |= _assigned(other)
    if (_names_in(function.call) - set(function.params)) & local:
        return None
    call = transform(function.call, _Substitute(binding), layout=False)
    path = fn_path(env.ctx.imports, call.func)
    fn_name, entry = op_entry(path)
    env.ctx.facts.setdefault("inlined_reader_functions", set()).add(small.value.func.value)
    return small.targets[0].target, call, fn_name, entry, None  # nothing copied: the reader's own output


def _assigned(statement) -> set[str]:
    from .model import AssignedNames

    names = AssignedNames()
    walk(statement, names)
    return names.names


def _bind(function: ReaderFunction, call: cst.Call) -> dict | None:
    """parameter -> argument expression, when every argument is a name, an attribute or a literal (read
    once or more by the reader call, it gives the same value each time)."""
    binding: dict[str, cst.BaseExpression] = {}
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args) or len(positional) > function.positional:
        return None
    for param, arg in zip(function.params, positional):
        binding[param] = arg.value
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value not in function.params or arg.keyword.value in binding:
                return None
            binding[arg.keyword.value] = arg.value
    for param in function.params:
        if param not in binding:
            if param not in function.defaults:
                return None
            binding[param] = function.defaults[param]
    if not all(isinstance(v, (cst.Name, cst.Attribute)) or _is_literal(v) for v in binding.values()):
        return None
    return binding


def seeded_call(original: cst.Call, call: cst.Call, env, desc) -> cst.Call:
    """A call of a function with seeded random ops, in a pipeline step: one RNG per op, created once by the
    pipeline (``desc.rngs``), passed by keyword."""
    seeded = env.ctx.facts.get("seeded_functions") or {}
    if not isinstance(call.func, cst.Name) or call.func.value not in seeded or any(a.star for a in call.args) \
            or any(kwarg(call, p) is not None for p in seeded[call.func.value].params):
        return call
    function = seeded[call.func.value]
    from .body_ops import _Repeated

    repeated = _Repeated({call.func.value})
    if env.current is not None:  # (None: the call is in the pipeline's returned outputs, in no loop)
        walk(env.current, repeated)
    if any(found is original for found in repeated.calls):
        return call  # called at each pass of a loop: an operator (a stream) per pass, not one per call site
    seeds = [function.seed_at(seed, call) for seed in function.seeds]
    if any(seed is None or not _made_once(seed, env, desc) for seed in seeds):
        return call  # the seed is not known once, before the steps: the helper stays marked (DM112)
    for param, seed in zip(function.params, seeds):
        env.rng_counter[0] += 1
        name = f"{env.prefix}rng_{env.rng_counter[0]}"
        desc.rngs.append((name, seed))
        call = with_kwarg(call, param, expr(name))
    desc.has_random = True
    env.report(rules.OP_SEED.id, f"{call.func.value}() draws from its own ndd.random.RNG(seed=...) per seeded operator "
               f"({', '.join(code_of(s) for s in seeds)}), created once by the pipeline and passed as "
               f"{', '.join(function.params)}=; values differ from pipeline mode", original)
    env.ctx.facts.setdefault("seeded_calls", set()).add(call.func.value)
    return call


def _made_once(seed: cst.BaseExpression, env, desc) -> bool:
    """``seed`` (a call's argument for a helper's seed parameter) has one value for the whole pipeline, which
    an RNG made once before the steps can take: a literal, or an expression without calls (``seed``, ``seed + 1``,
    ``self.seed``) over names that the pipeline body binds at most once (then before its steps: pipeline mode
    needs the seed, an int, when the graph is defined) and that are not a generator's own read from the module
    (``seed``, ``batch_size``...)."""
    if _is_literal(seed):
        return True
    reads = NameReads()
    walk(seed, reads)
    if reads.calls or _has(seed, (cst.Lambda, cst.NamedExpr, cst.Await, cst.Yield, cst.BaseComp)):
        return False
    counts: dict[str, int] = {}
    for statement in desc.extra.get("statements", ()):
        bound = AssignedNames()
        walk(statement, bound)
        for name in bound.names & reads.names:
            counts[name] = counts.get(name, 0) + 1
    # a name the body does not bind, nor the pipeline function's parameters, is the module's: inside the generator
    # the generator's own parameter of that name (seed) would be read instead
    return all(n <= 1 for n in counts.values()) and not any(
        name in _GENERATOR_PARAMS and not counts.get(name) and name not in desc.params for name in reads.names)


class _Find(cst.CSTVisitor):
    """Whether a tree holds a node of ``kinds`` (module-level: a class made per call would keep the tree in a cycle,
    tests/test_scale.py)."""

    def __init__(self, kinds):
        self.kinds, self.found = kinds, False

    def on_visit(self, node):
        self.found = self.found or isinstance(node, self.kinds)
        return not self.found


def _has(node, kinds) -> bool:
    finder = _Find(kinds)
    walk(node, finder)
    return finder.found


# -- after the unroll: the functions themselves ----------------------------------------------------------

def finish(module: cst.Module, ctx) -> cst.Module:
    """Remove reader functions no call is left of; give seeded functions their rng parameters when every
    reference to them is a call that passes them."""
    inlined = ctx.facts.get("inlined_reader_functions") or set()
    candidates = ctx.facts.get("seeded_functions") or {}
    seeded = {name: f for name, f in candidates.items() if name in (ctx.facts.get("seeded_calls") or set())}
    if not inlined and not seeded:
        return _kept_as_they_were(module, candidates)
    uses = _Uses(set(inlined) | set(seeded))
    walk(module, uses)
    references = uses.references
    removed = {name for name in inlined if not references.get(name)}
    rewritten = {name: f for name, f in seeded.items()
                 if all(call is not None and all(kwarg(call, p) is not None for p in f.params)
                        for call in references.get(name, []))}
    if not removed and not rewritten:
        return _kept_as_they_were(module, {n: f for n, f in candidates.items() if n not in rewritten})
    body, comments = [], []
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value in removed:
            _report(ctx, statement, f"{statement.name.value}() is removed: each pipeline that called it creates "
                                    f"its reader once itself (the reader call, inlined)")
            comments = [line for line in statement.leading_lines if line.comment is not None]
            continue
        if isinstance(statement, cst.FunctionDef) and statement.name.value in rewritten:
            statement = _with_rng_params(statement, rewritten[statement.name.value], ctx)
        elif isinstance(statement, cst.FunctionDef) and statement.name.value in candidates:
            statement = candidates[statement.name.value].node  # not given rng parameters: as it was (rename.py)
        if comments:  # the removed def's comments stay where they were (in a notebook, in its cell: the cells
            # are split back by lines, and these come before the next cell's first line)
            statement = statement.with_changes(leading_lines=[*comments, *statement.leading_lines])
        comments = []
        body.append(statement)
    return module.with_changes(body=body)



def _kept_as_they_were(module: cst.Module, kept: dict) -> cst.Module:
    """The module with each seeded function that gets no rng parameters as it was before the unroll (which may have
    given its random ops ``batch_size=``): the rename pass leaves a function with seeded random ops as it was, marked
    (DM112), so that the pipelines that call it keep running it in pipeline mode."""
    if not kept:
        return module
    body = [kept[s.name.value].node if isinstance(s, cst.FunctionDef) and s.name.value in kept else s
            for s in module.body]
    return module.with_changes(body=body)


def _report(ctx, node, message):
    ctx.report(rules.READER_ONCE.id, message, node)


class _Uses(NameReads):
    """Each reference to the names: the call it is the callee of, or None for any other use."""

    def __init__(self, wanted: set[str]):
        super().__init__()
        self.wanted = wanted
        self._callees: dict[cst.CSTNode, cst.Call] = {}

    def visit_FunctionDef(self, node):
        self._skip.add(node.name)  # the definition is not a use

    def visit_Call(self, node):
        super().visit_Call(node)
        self._callees[node.func] = node

    @property
    def references(self) -> dict[str, list]:
        found: dict[str, list] = {}
        for node in self.nodes:
            if node.value in self.wanted:
                found.setdefault(node.value, []).append(self._callees.get(node))
        return found


class _SeedToRng(cst.CSTTransformer):
    def __init__(self, calls, params):
        super().__init__()
        self.params = dict(zip(calls, params))

    def leave_Call(self, original_node, updated_node):
        param = self.params.get(original_node)
        if param is None:
            return updated_node
        # in place, so that the argument keeps its comma and comment
        args = [a.with_changes(keyword=cst.Name("rng"), value=cst.Name(param))
                if a.keyword is not None and a.keyword.value == "seed" else a for a in updated_node.args]
        return updated_node.with_changes(args=args)


def _with_rng_params(function: cst.FunctionDef, seeded: SeededFunction, ctx) -> cst.FunctionDef:
    ops = _SeededOps(ctx.imports, {seed.value for seed in seeded.seeds if isinstance(seed, cst.Name)})
    walk(function.body, ops)
    body = transform(function.body, _SeedToRng(ops.calls, seeded.params), layout=False)
    params = function.params
    kwonly = [*params.kwonly_params, *(cst.Param(cst.Name(p)) for p in seeded.params)]
    star = params.star_arg if not isinstance(params.star_arg, cst.MaybeSentinel) else cst.ParamStar()
    return function.with_changes(body=body, params=params.with_changes(kwonly_params=kwonly, star_arg=star))
