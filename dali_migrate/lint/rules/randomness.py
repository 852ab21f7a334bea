"""Random operators: batch_size on input-less random ops (DM312), one seeding style (DM313)."""

from __future__ import annotations

from functools import lru_cache

import libcst as cst

from ... import optable
from ..core import HEADER, check, code, is_constant, lint_rule, method_call, single_binding
from ...dataflow import keyword, op_path

RANDOM_WITHOUT_BATCH_SIZE = lint_rule(
    "DM312", "random-without-batch-size", "error",
    "An input-less random op without batch_size= feeds a per-sample computation.",
    "With no batch_size and no Batch input, ndd.random.* returns ONE Tensor, which an op then "
    "broadcasts to the whole batch: every sample gets the same flip or angle, silently (verified: "
    "flip(horizontal=coin_flip()) flips all 8 samples or none). Pipeline mode drew one value per sample.",
    before=HEADER + "reader = ndd.readers.File(file_root=\"images\")\n"
                    "for jpegs, labels in reader.next_epoch(batch_size=8):\n"
                    "    images = ndd.decoders.image(jpegs)\n"
                    "    images = ndd.flip(images, horizontal=ndd.random.coin_flip())\n",
    after=HEADER + "reader = ndd.readers.File(file_root=\"images\")\n"
                   "for jpegs, labels in reader.next_epoch(batch_size=8):\n"
                   "    images = ndd.decoders.image(jpegs)\n"
                   "    images = ndd.flip(images, horizontal=ndd.random.coin_flip(batch_size=8))\n",
    fix="manual",
    suggestion="Pass batch_size=N (the batch size of the data it goes with) to the random op.",
)
SEED_AND_RNG = lint_rule(
    "DM313", "seed-and-rng", "warning",
    "Both ndd.random.set_seed() and an explicit ndd.random.RNG in one program.",
    "DALI's guide: use one of the two. Ops with rng= ignore the default seed and ops without it "
    "ignore the RNG, so which values a seed controls depends on each call site; reproducing a run "
    "then needs both kept in step.",
    before=HEADER + "ndd.random.set_seed(42)\nrng = ndd.random.RNG(seed=42)\n"
                    "angles = ndd.random.uniform(batch_size=8, range=(-30, 30), rng=rng)\n",
    after=HEADER + "rng = ndd.random.RNG(seed=42)\n"
                   "angles = ndd.random.uniform(batch_size=8, range=(-30, 30), rng=rng)\n",
    fix="manual",
    line=3,
    suggestion="Seed with ndd.random.set_seed(S) only, or create RNG objects and pass rng= to every random op.",
)


@lru_cache(maxsize=1)
def _input_less_random() -> frozenset[str]:
    return frozenset(e["ndd"] for e in optable.table()["fn"].values()
                     if e.get("ndd") and e.get("random") and e.get("input_less"))


def _epoch_loop_batch_size(ctx, node):
    """The batch size expression of the ``for ... in R.next_epoch(batch_size=...)`` around ``node``."""
    loop = ctx.enclosing(node, (cst.For,))
    while loop is not None:
        it = loop.iter
        if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "enumerate" and it.args:
            it = it.args[0].value
        receiver, _ = method_call(it, "next_epoch")
        if receiver is not None and ctx.kind(receiver, at=it) == "reader":
            arg = keyword(it, "batch_size") or next((a for a in it.args if a.keyword is None), None)
            return arg.value if arg is not None else None
        loop = ctx.enclosing(loop, (cst.For,))
    return None


def _feeds_an_op(ctx, call) -> bool:
    """``call`` (or the name it is assigned to) is an argument of another ndd operator call."""
    parent = ctx.parent(call)
    if isinstance(parent, cst.Arg):
        outer = ctx.parent(parent)
        path = ctx.ndd_path(outer.func) if isinstance(outer, cst.Call) else None
        return path is not None and op_path(path) is not None
    if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
        name = parent.targets[0].target
        for use in ctx.nodes_of(cst.Name):
            if use.value != name.value or use is name or not isinstance(ctx.parent(use), cst.Arg):
                continue
            if single_binding(ctx, use) is call:
                outer = ctx.parent(ctx.parent(use))
                path = ctx.ndd_path(outer.func) if isinstance(outer, cst.Call) else None
                if path is not None and op_path(path) is not None:
                    return True
    return False


@check
def random_without_batch_size(ctx) -> None:
    ops = _input_less_random()
    for call in ctx.nodes_of(cst.Call):
        path = ctx.ndd_path(call.func)
        if path not in ops or keyword(call, "batch_size") is not None:
            continue
        if any(a.keyword is None for a in call.args):
            continue  # shape_like input: the batch size comes from it
        if not all(a.keyword.value in ("rng", "device", "dtype") or is_constant(ctx, a.value) for a in call.args):
            continue  # an argument could be a Batch, which sets the batch size
        size = _epoch_loop_batch_size(ctx, call)
        if size is None and not _feeds_an_op(ctx, call):
            continue
        hint = f"batch_size={code(size)}" if size is not None else "batch_size=N"
        ctx.report(RANDOM_WITHOUT_BATCH_SIZE.id, call,
                   f"ndd.{path}() without batch_size returns one value for the whole batch; pass {hint}")


@check
def seed_and_rng(ctx) -> None:
    seeds, rngs = [], []
    for call in ctx.nodes_of(cst.Call):
        path = ctx.ndd_path(call.func)
        if path == "random.set_seed":
            seeds.append(call)
        elif path == "random.RNG":
            rngs.append(call)
    if not seeds or not rngs:
        return
    first_seed, first_rng = seeds[0], rngs[0]
    later, other = (first_rng, first_seed) if ctx.sort_key(first_rng) > ctx.sort_key(first_seed) else (first_seed, first_rng)
    ctx.report(SEED_AND_RNG.id, later,
               f"this program seeds with both ndd.random.set_seed and an explicit ndd.random.RNG (line "
               f"{ctx.line(other)}): use one of them")
