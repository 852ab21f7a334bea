"""What has no faithful Batch counterpart is marked, not rewritten."""

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def pipe_def():
    values = fn.random.uniform(range=(0, 1), shape=3)
    shape = (values * 2).shape()
    return values, shape


pipe = pipe_def()
pipe.build()
values, shape = pipe.run()
if values.is_dense_tensor():
    head = values[0:2]
if values.dtype == types.FLOAT:
    print(values.as_reshaped_tensor([4, 3]))
