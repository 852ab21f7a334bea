"""Inside pipeline definitions, indexing a DataNode is per-sample slicing: x.slice[...]."""

import nvidia.dali.fn as fn
import nvidia.dali.math as dmath
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali import Pipeline, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def crop_pipe():
    data = types.Constant([[1.0, 2.0, 3.0]])
    xy = fn.random.uniform(range=(0, 1), shape=2)
    scaled = xy * 2 + 1
    first = scaled[0]
    tail = dmath.sqrt(xy)[1:]
    outs = fn.readers.file(file_root="/data")  # a list of two DataNodes: outs[0] picks an output
    jpegs = outs[0]
    labels = outs[1][0]
    sized = fn.resize(data, size=3)  # resize's output count depends on save_attrs: left alone
    return first, tail, jpegs, labels, data[0, 1:], sized[0], (-xy)[1]


class LegacyPipe(Pipeline):
    def __init__(self):
        super().__init__(batch_size=2, num_threads=1, device_id=None)
        self.uniform = ops.random.Uniform(range=(0, 1), shape=2)

    def define_graph(self):
        xy = self.uniform()
        return xy[0], xy.gpu()[1]


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def external_pipe(source):
    pair = fn.external_source(source=source, num_outputs=2)  # a list: pair[0] picks an output
    single = fn.external_source(source=source)
    return pair[0], pair[1][0], single[0]
