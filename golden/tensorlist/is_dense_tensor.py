"""TensorList.is_dense_tensor() on pipeline outputs: whether every sample has the same shape (a pipeline's outputs
are contiguous), wherever the call stands."""

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def pipe_def():
    values = fn.random.uniform(range=(0, 1), shape=3)
    ragged = fn.random.uniform(range=(0, 1), shape=fn.random.uniform(range=(1, 4), shape=1, dtype=types.INT32))
    return values, ragged


pipe = pipe_def()
pipe.build()
values, ragged = pipe.run()
if values.is_dense_tensor():
    print(np.array(values.as_tensor()).shape)
dense = [out.is_dense_tensor() for out in pipe.run()]
print(ragged.is_dense_tensor() == False, not ragged.is_dense_tensor(), dense)
