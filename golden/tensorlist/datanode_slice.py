"""Inside pipeline definitions, indexing a DataNode is per-sample slicing: x.slice[...]."""

import numpy as np

import nvidia.dali.fn as fn
import nvidia.dali.math as dmath
import nvidia.dali.ops as ops
from nvidia.dali import Pipeline, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def crop_pipe():
    data = fn.random.uniform(range=(1, 3), shape=[1, 3])
    xy = fn.random.uniform(range=(0, 1), shape=2)
    scaled = xy * 2 + 1
    first = scaled[0]
    tail = dmath.sqrt(xy)[1:]
    outs = fn.readers.file(file_root="/data")  # a list of two DataNodes: outs[0] picks an output
    jpegs = outs[0]
    labels = outs[1][0]
    sized = fn.resize(data, size=3)  # one output: resize returns two only with save_attrs=True
    return first, tail, jpegs, labels, data[0, 1:], sized[0], (-xy)[1]


class LegacyPipe(Pipeline):
    def __init__(self):
        super().__init__(batch_size=2, num_threads=1, device_id=None)
        self.uniform = ops.random.Uniform(range=(0, 1), shape=2)

    def define_graph(self):
        xy = self.uniform()
        return xy[0], xy.gpu()[1]


def pairs():
    while True:
        yield [np.ones((2, 3), np.float32)] * 2, [np.zeros((2, 3), np.float32)] * 2


def singles():
    while True:
        yield [np.ones((2, 3), np.float32)] * 2


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def external_pipe():
    pair = fn.external_source(source=pairs, num_outputs=2)  # a list: pair[0] picks an output
    single = fn.external_source(source=singles)
    return pair[0], pair[1][0], single[0]
