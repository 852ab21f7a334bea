"""A subscript of a graph value that belongs to no pipeline (a constant made in a test function) stays as it is; an
Ellipsis subscript in a pipeline is marked (pipeline mode raises NotImplementedError there, dynamic mode slices)."""

import numpy as np

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


def check_noop():
    # dali-migrate: DM103 types.Constant has no dynamic-mode counterpart: it is built outside any pipeline step the tool migrates, and read where no batch data meets it (an output of its own, or a graph that is not visible or not migrated here); where it is a batch of the pipeline's batch size, it becomes ndd.Batch.broadcast(ndd.tensor(np.float32([1, 2, 2])), batch_size)
    node = types.Constant(np.float32([1, 2, 2]))
    indexed = node[:]
    return indexed.name


# dali-migrate: DM230 ellipsis stays in pipeline mode with everything that uses it: line 20: x[..., i]: pipeline mode raises NotImplementedError (Ellipsis in indexing is not implemented) where dynamic mode's x.slice[..., i] slices
@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def ellipsis():
    data = fn.random.uniform(range=(0, 1), shape=[2, 3])
    # dali-migrate: DM129 x[..., i]: pipeline mode raises NotImplementedError (Ellipsis in indexing is not implemented) where dynamic mode's x.slice[..., i] slices
    return data[..., 0]


@Prefetch(depth=2)
def steps_and_negatives(*, batch_size=2):
    while True:
        data = ndd.random.uniform(range=(0, 1), shape=[4, 6], batch_size=batch_size)
        yield data.slice[::-1], data.slice[1:-1, ::2], data.slice[-1], data.slice[:]
