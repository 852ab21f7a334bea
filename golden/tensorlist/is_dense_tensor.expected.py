"""TensorList.is_dense_tensor() on pipeline outputs: whether every sample has the same shape (a pipeline's outputs
are contiguous), wherever the call stands."""

import numpy as np
import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


@Prefetch(depth=2)
def pipe_def(*, batch_size=4):
    while True:
        values = ndd.random.uniform(range=(0, 1), shape=3, batch_size=batch_size)
        ragged = ndd.random.uniform(range=(0, 1), shape=ndd.random.uniform(range=(1, 4), shape=1, dtype=types.INT32, batch_size=batch_size), batch_size=batch_size)
        yield values, ragged


pipe = pipe_def()
values, ragged = next(pipe)
if (len({tuple(shape) for shape in values.shape}) <= 1):
    print(np.array(ndd.as_tensor(values)).shape)
dense = [(len({tuple(shape) for shape in out.shape}) <= 1) for out in next(pipe)]
print((len({tuple(shape) for shape in ragged.shape}) <= 1) == False, not (len({tuple(shape) for shape in ragged.shape}) <= 1), dense)
