"""What a migrated pipeline's generator takes from the pipeline it replaces: the ``Pipeline(...)`` options of a
call, the keyword-only parameters they become (``batch_size``, ``num_threads``, ``device_id``, ``seed``), whether
the generator takes a seed and how many threads it asks for, and which pipeline a ``with`` block fills. Read by
the unroller and the with-style pipelines alike (``unroll``, ``withstyle``)."""

from __future__ import annotations

import libcst as cst

from ...names import dotted
from ...walk import walk
from .generator_code import loop_statements, seeding_statements
from .model import CORE, PIPELINE_POSITIONAL, NameReads, PipelineDesc, code_of, literal_value


def filled_pipeline(with_node, item: str) -> str | None:
    """The pipeline whose graph a ``with item:`` block builds: ``item``, or ``other`` when the block ends with
    ``other.set_outputs(...)`` (pipeline mode takes a graph from the outputs given to set_outputs; ``item`` was only
    the current pipeline while the nodes were made). None for such a block that reads Pipeline.current(): that is
    ``item``'s, not the pipeline built."""
    body = with_node.body.body if isinstance(with_node.body, cst.IndentedBlock) else ()
    last = body[-1] if body else None
    if isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1 and isinstance(last.body[0], cst.Expr) \
            and isinstance(last.body[0].value, cst.Call) and isinstance(last.body[0].value.func, cst.Attribute) \
            and last.body[0].value.func.attr.value == "set_outputs":
        other = dotted(last.body[0].value.func.value)
        if other and other != item:
            return None if ".current()" in code_of(with_node) else other
    return item


def pipeline_call_config(call: cst.Call) -> dict[str, cst.BaseExpression]:
    config = {}
    positional = [a for a in call.args if a.keyword is None and not a.star]
    for name, arg in zip(PIPELINE_POSITIONAL, positional):
        config[name] = arg.value
    for arg in call.args:
        if arg.keyword is not None:
            config[arg.keyword.value] = arg.value
    return config


def add_core_params(params: cst.Parameters, config, existing, core=CORE) -> cst.Parameters:
    """`def f(a, b)` -> `def f(a, b, *, batch_size=B, num_threads=T, device_id=D, seed=S)` (those of ``core``)."""
    have = set(existing) | {p.name.value for p in params.kwonly_params}
    new = []
    for name in CORE:
        if name in have or name not in core:
            continue
        default = config.get(name)
        if name == "seed" and default is not None and literal_value(default) == -1:
            default = None
        if default is None and name != "batch_size":
            default = cst.Name("None")
        if default is None:  # no batch size in the decorator: the caller must pass one
            new.append(cst.Param(cst.Name(name)))
        else:
            new.append(cst.Param(cst.Name(name), default=default,
                                 equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                       whitespace_after=cst.SimpleWhitespace(""))))
    if not new:
        return params
    star = params.star_arg
    if not isinstance(star, (cst.Param, cst.ParamStar)):
        star = cst.ParamStar()
    kwonly = list(params.kwonly_params)
    # required kw-only params may follow defaulted ones, Python allows any order
    return params.with_changes(star_arg=star, kwonly_params=kwonly + new)


def generator_names(desc: PipelineDesc, env) -> tuple[set[str], set[str]]:
    """The names the generator written for ``desc`` reads (its seeding, readers, loop and outputs), and those
    it reads outside its seeding statements."""
    seeding, loop = NameReads(), NameReads()  # not keywords (seed=5) nor attributes (x.seed)
    for statement in seeding_statements(desc, env, desc.config.get("seed")):
        walk(statement, seeding)
    for statement in loop_statements(desc, env):
        walk(statement, loop)
    return seeding.names | loop.names, loop.names


def takes_seed(desc: PipelineDesc, names: set[str], outside_seeding: set[str], rng_mode: bool, seeds=()) -> bool:
    """Whether the generator written for ``desc`` takes ``seed``: where its readers or RNG objects read it, where
    ``set_seed`` gets a seed the pipeline or a caller (``seeds``, their arguments) gives, or where a caller's
    value is not plain (its evaluation is kept). A generator whose seeding nobody gives a seed is marked
    ``unseeded``: pipeline mode drew one at random too."""
    if "seed" in outside_seeding or rng_mode or any(not _plain(s) for s in seeds):
        return True
    if "seed" in names and (literal_value(desc.config.get("seed")) not in (None, -1) or seeds):
        return True  # set_seed(seed): a seed is given (-1 meant "draw one", like none)
    if "seed" in names:
        desc.extra["unseeded"] = True
    return False


def threads_plan(values) -> tuple[bool, int]:
    """What the num_threads given to a pipeline (``values``: its own and its callers' expressions, None where
    not given) ask of its generator: (a value is computed, so it takes ``num_threads``; the largest literal
    count, to grow the pool to once). A literal None asks nothing."""
    literals = [literal_value(v) for v in values if v is not None]
    if any(x is not None and not _is_int(x) for x in literals):
        return True, 0
    return False, max((x for x in literals if x is not None), default=0)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _plain(value) -> bool:
    """A value whose evaluation has no effect: a literal, a name or an attribute of one."""
    if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString, cst.Name)):
        return True
    if isinstance(value, cst.UnaryOperation):
        return _plain(value.expression)
    return isinstance(value, cst.Attribute) and _plain(value.value)
