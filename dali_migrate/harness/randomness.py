"""Make random operators comparable between pipeline mode and dynamic mode.

Pipeline mode and dynamic mode draw different numbers from the same seed (ndd-facts §2.4), so a
plain comparison would fail every honest migration of a pipeline with a random op. Two layers:

1. **Fed random states (bitwise parity).** While the migrated side runs, every random-op call's
   state (7 uint32 words drawn from the ndd RNG, one per call, broadcast to the batch) is recorded
   in call order, one list per iteration (``StateRecorder``). While the original pipeline's graph
   is defined, every random op (schema ``HasRandomStateArg``) gets the hidden argument input
   ``_random_state`` from an ``external_source`` that replays the state recorded for the k-th
   random-op call of that iteration (``PipelineHooks``). This is the technique of DALI's own
   parity test (``test_rn50_pipeline.py``). When the migrated code drew the same sequence of
   random ops every iteration as the pipeline defines them, the two sides see the same random
   numbers and random outputs are compared bitwise, like any other.
2. **Dependency analysis (fallback).** When the sequences do not line up (another number or order
   of random calls, data-dependent control flow), the outputs of the pipeline that depend on a
   random op (walking the DataNode graph back from each output) are *skipped* with the reason:
   their values are not compared, only batch size, dtype, ndim and layout.

The same hook fixes one more source of non-reproducible difference: a reader with
``random_shuffle=True`` and no ``seed=`` takes a seed that the pipeline derives in C++ from the
pipeline seed, which dynamic mode cannot reproduce; the migration gives the ndd reader
``seed=<pipeline seed>``, so the harness gives the original reader the same explicit seed, and
reports that it did.
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, field

import numpy as np

STATE_WORDS = 7


def canonical_schema(name: str) -> str:
    """A schema name with deprecated aliases resolved (``CoinFlip`` -> ``random__CoinFlip``)."""
    from nvidia.dali import backend

    seen = set()
    while name not in seen:
        seen.add(name)
        try:
            newer = backend.GetSchema(name).DeprecatedInFavorOf()
        except Exception:
            return name
        if not newer:
            return name
        name = newer
    return name


def display_op(name: str) -> str:
    """``random__CoinFlip`` -> ``random.CoinFlip``."""
    return name.replace("__", ".")


# --------------------------------------------------------------------------- dynamic-mode side
class StateRecorder:
    """Records the random state every ndd random-op call draws, per iteration, in call order.

    The harness marks each iteration (``start_iteration``) before it asks for the step. A migrated
    generator that prefetches (``@Prefetch``) draws in its own thread, steps ahead of those marks, so
    there the draws are taken in order and cut into iterations of the pipeline's own number of random
    ops (``line_up``): the steps draw in the order the generator alone draws them.
    """

    def __init__(self) -> None:
        self.draws: list[tuple[str, np.ndarray]] = []  # every draw, in call order
        self.marks: list[int] = []  # len(draws) when each iteration was asked for
        self.iterations: list[list[tuple[str, np.ndarray]]] = []  # per iteration, once lined up
        self._marking_thread: int | None = None
        self._other_threads = False  # some draw came from another thread than the one marking iterations
        self._current_op: list[str | None] = [None]

    def start_iteration(self) -> None:
        self._marking_thread = threading.get_ident()
        self.marks.append(len(self.draws))
        self.line_up(None)

    def line_up(self, period: int | None) -> None:
        """Cut the draws into ``iterations``: at the marks, or, when another thread drew (a prefetching
        generator), every ``period`` draws (the pipeline's random ops per iteration)."""
        if self._other_threads and period:
            self.iterations = [self.draws[i:i + period] for i in range(0, len(self.draws) - period + 1, period)]
            return
        bounds = [*self.marks, len(self.draws)]
        self.iterations = [self.draws[a:b] for a, b in zip(bounds, bounds[1:])]

    def sequence(self, i: int) -> list[str]:
        return [name for name, _ in self.iterations[i]]

    @contextlib.contextmanager
    def recording(self):
        from nvidia.dali.experimental.dynamic import _ops as ndd_ops
        from nvidia.dali.experimental.dynamic import random as ndd_random

        original_process = ndd_ops.Operator.__dict__["_process_params"]
        original_draw = ndd_random._draw_state
        recorder = self

        def process_params(cls, *args, **kwargs):
            recorder._current_op[0] = cls._schema.Name() if cls._has_random_state_arg else None
            return original_process.__func__(cls, *args, **kwargs)

        def draw_state(next_uint32):
            words = original_draw(next_uint32)
            if recorder.marks and recorder._current_op[0] is not None:
                recorder.draws.append((canonical_schema(recorder._current_op[0]), np.array(words, dtype=np.uint32)))
                if threading.get_ident() != recorder._marking_thread:
                    recorder._other_threads = True
            return words

        ndd_ops.Operator._process_params = classmethod(process_params)
        ndd_random._draw_state = draw_state
        try:
            yield self
        finally:
            ndd_ops.Operator._process_params = original_process
            ndd_random._draw_state = original_draw


# --------------------------------------------------------------------------- pipeline side
class _StateFeed:
    """``external_source`` callback: the state recorded for random-op slot ``k``, per iteration.

    A parameterless ``__call__`` (DALI passes an iteration index to callables that take one).
    """

    def __init__(self, hooks: "PipelineHooks", slot: int, batch_size: int) -> None:
        self.hooks = hooks
        self.slot = slot
        self.batch_size = batch_size
        self.iteration = 0

    def __call__(self):
        i = self.iteration
        self.iteration += 1
        state = self.hooks.state_for(i, self.slot)
        return [state] * self.batch_size


@dataclass
class ReaderSeedNote:
    op: str
    seed: int

    def format(self) -> str:
        return (f"{display_op(self.op)}: random_shuffle=True without seed=; the pipeline would derive the "
                f"shuffle seed from the pipeline seed in C++, which dynamic mode cannot reproduce; the "
                f"harness gave the original reader seed={self.seed}, the seed the migration gives the "
                f"dynamic-mode reader")


@dataclass
class PipelineHooks:
    """Patches DALI's graph construction while the original pipeline is defined."""

    recorder: StateRecorder | None
    random_slots: list[str] = field(default_factory=list)  # canonical schema per random op, creation order
    reader_seeds: list[ReaderSeedNote] = field(default_factory=list)
    aligned: bool = False

    def state_for(self, iteration: int, slot: int) -> np.ndarray:
        if self.aligned and self.recorder is not None and iteration < len(self.recorder.iterations):
            return self.recorder.iterations[iteration][slot][1]
        # Prefetching past the compared iterations, or no alignment: values are not compared.
        return np.zeros(STATE_WORDS, dtype=np.uint32)

    @contextlib.contextmanager
    def installed(self, feed_random_states: bool = True):
        from nvidia.dali import fn, ops
        from nvidia.dali.pipeline import Pipeline

        original_init = ops._OperatorInstance.__init__
        hooks = self

        def init(instance, inputs, arg_inputs, arguments, processed_arguments, op):
            schema = op._schema
            pipe = Pipeline.current()
            if feed_random_states and schema.HasRandomStateArg() and "_random_state" not in arg_inputs \
                    and pipe is not None:
                slot = len(hooks.random_slots)
                hooks.random_slots.append(canonical_schema(schema.Name()))
                feed = fn.external_source(source=_StateFeed(hooks, slot, pipe.max_batch_size), batch=True,
                                          dtype=_uint32(), device="cpu")
                arg_inputs = {**arg_inputs, "_random_state": feed}
            if pipe is not None and schema.HasArgument("random_shuffle") and schema.IsStateful():
                given = {**op._init_args, **arguments}
                if given.get("random_shuffle") and given.get("seed") is None and pipe.seed is not None:
                    arguments = {**arguments, "seed": int(pipe.seed)}
                    hooks.reader_seeds.append(ReaderSeedNote(canonical_schema(schema.Name()), int(pipe.seed)))
            original_init(instance, inputs, arg_inputs, arguments, processed_arguments, op)

        ops._OperatorInstance.__init__ = init
        try:
            yield self
        finally:
            ops._OperatorInstance.__init__ = original_init

    def align(self, iterations: int) -> str | None:
        """Check that the migrated side drew the pipeline's random-op sequence each iteration.

        Returns None when aligned (and enables feeding), else the reason it cannot be.
        """
        self.aligned = False
        if not self.random_slots:
            return None
        if self.recorder is None:
            return "random states were not recorded"
        self.recorder.line_up(len(self.random_slots))
        expected = [display_op(n) for n in self.random_slots]
        for i in range(min(iterations, len(self.recorder.iterations))):
            got = [display_op(n) for n in self.recorder.sequence(i)]
            if got != expected:
                return (f"iteration {i}: the pipeline defines random ops {expected} but the migrated code "
                        f"drew random states for {got}; their random numbers cannot be lined up")
        self.aligned = True
        return None


def _uint32():
    from nvidia.dali import types

    return types.UINT32


# --------------------------------------------------------------------------- dependency analysis
def random_dependencies(pipe) -> list[list[str]]:
    """For each output of a built pipeline, the random ops (display names) it depends on."""
    outputs = getattr(pipe, "_graph_outputs", None) or []
    memo: dict[int, frozenset[str]] = {}

    def op_random(op) -> frozenset[str]:
        key = id(op)
        if key in memo:
            return memo[key]
        memo[key] = frozenset()  # cycles cannot happen in a DAG; guard anyway
        found: set[str] = set()
        schema = getattr(op._op, "schema", None) if hasattr(op, "_op") else None
        if schema is not None and schema.HasRandomStateArg():
            found.add(display_op(canonical_schema(schema.Name())))
        for edge in _input_edges(op):
            if edge.source is not None:
                found |= op_random(edge.source)
        memo[key] = frozenset(found)
        return memo[key]

    result = []
    for node in outputs:
        result.append(sorted(op_random(node.source)) if node.source is not None else [])
    return result


def _input_edges(op):
    for item in getattr(op, "inputs", []) or []:
        if isinstance(item, list):
            yield from item
        else:
            yield item
