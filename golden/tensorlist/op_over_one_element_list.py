"""An operator given a list of one DataNode (an external_source with num_outputs=1, a list literal) gives what one
call gives; over a longer list, one call per element."""

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def decoded(source, pairs):
    encoded = fn.external_source(source=source, num_outputs=1, batch=False, dtype=types.UINT8)
    arrays = fn.decoders.numpy(encoded)
    halves = fn.cast([arrays * 0.5], dtype=types.FLOAT16)
    pair = fn.external_source(source=pairs, num_outputs=2)
    rounded = fn.cast(pair, dtype=types.INT32)
    return arrays, halves, rounded[0], rounded[1]
