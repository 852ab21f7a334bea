"""Inside pipeline definitions, indexing a DataNode is per-sample slicing: x.slice[...]."""

import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali import Pipeline, pipeline_def
import nvidia.dali.experimental.dynamic as ndd


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def crop_pipe():
    data = types.Constant([[1.0, 2.0, 3.0]])
    xy = ndd.random.uniform(range=(0, 1), shape=2)
    scaled = xy * 2 + 1
    first = scaled.slice[0]
    tail = ndd.math.sqrt(xy).slice[1:]
    # dali-migrate: DM104 ndd.readers.File is a stateful reader: create it once and iterate reader.next_epoch(batch_size=...); calling it does not return batches
    outs = ndd.readers.File(file_root="/data")  # a list of two DataNodes: outs[0] picks an output
    jpegs = outs[0]
    labels = outs[1].slice[0]
    sized = ndd.resize(data, size=3)  # resize's output count depends on save_attrs: left alone
    return first, tail, jpegs, labels, data.slice[0, 1:], sized[0], (-xy).slice[1]


class LegacyPipe(Pipeline):
    def __init__(self):
        super().__init__(batch_size=2, num_threads=1, device_id=None)
        self.uniform = ops.random.Uniform(range=(0, 1), shape=2)

    def define_graph(self):
        xy = self.uniform()
        return xy.slice[0], xy.gpu().slice[1]


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def external_pipe(source):
    # dali-migrate: DM103 fn.external_source has no dynamic-mode counterpart: pass the data to the ops directly (ndd.as_batch) or use ndd.ExternalSource
    pair = fn.external_source(source=source, num_outputs=2)  # a list: pair[0] picks an output
    # dali-migrate: DM103 fn.external_source has no dynamic-mode counterpart: pass the data to the ops directly (ndd.as_batch) or use ndd.ExternalSource
    single = fn.external_source(source=source)
    return pair[0], pair[1].slice[0], single.slice[0]
