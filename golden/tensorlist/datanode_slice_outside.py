"""A subscript of a graph value that belongs to no pipeline (a constant made in a test function) stays as it is; an
Ellipsis subscript in a pipeline is marked (pipeline mode raises NotImplementedError there, dynamic mode slices)."""

import numpy as np

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


def check_noop():
    node = types.Constant(np.float32([1, 2, 2]))
    indexed = node[:]
    return indexed.name


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def ellipsis():
    data = fn.random.uniform(range=(0, 1), shape=[2, 3])
    return data[..., 0]


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def steps_and_negatives():
    data = fn.random.uniform(range=(0, 1), shape=[4, 6])
    return data[::-1], data[1:-1, ::2], data[-1], data[:]
