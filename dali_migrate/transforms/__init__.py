"""The migration passes, in the order they run. One pass per module, one job per pass.

Order and why:
1. tensorlist  — TensorList -> Batch on the consumer side; runs first, while `pipe.run()` still
                 says which values come from DALI.                                (foundation)
2. unroll      — pipelines (all four styles) to generators; readers once; seeds, threads,
                 batch_size on random ops; consumers; checkpoints.              (unroll)
3. rename      — every remaining fn/math reference to ndd.
4. arguments   — "mixed" -> "gpu", drop name=/preserve=/..., dtype fixes.    (foundation)
5. guards      — a module that imports DALI only under try/except ImportError keeps importing without it.
6. leftovers   — pipeline-mode API nothing migrated or marked gets a marker (the contract's net).
7. imports     — last: add the ndd import, prune what is unused.
"""

from .arguments import ArgumentsPass
from .guards import GuardsPass
from .imports import ImportsPass
from .leftovers import LeftoversPass
from .rename import RenamePass
from .tensorlist import DALI_TEST_TO_ARRAY, TensorListPass
from .unroll import UNROLL_TOGETHER, UNROLL_WORDS, UnrollPass
from .unroll.epoch_iterator import CLASS_NAME as _EPOCH_ITERATOR

PASSES = [
    TensorListPass(),
    UnrollPass(),
    RenamePass(),
    ArgumentsPass(),
    GuardsPass(),  # before leftovers: placeholders nothing reads any more are not pipeline-mode API left
    LeftoversPass(),  # the marker contract's safety net
    ImportsPass(),  # last: prunes what the other passes left unused
]

# Words that make a top-level statement matter to some pass besides the names imports bind to DALI
# (``elision``): the methods unroll reacts to on any object, the class it writes into modules (a
# module that defines it already keeps its own), ``ndd``, which later passes resolve even where
# it is not imported, and DALI's test helper ``to_array``, whose argument is a pipeline output.
ELISION_WORDS = frozenset(UNROLL_WORDS | {_EPOCH_ITERATOR, "ndd", DALI_TEST_TO_ARRAY.rpartition(".")[2]})
ELISION_TOGETHER = UNROLL_TOGETHER  # words that matter only together (unroll.UNROLL_TOGETHER)
