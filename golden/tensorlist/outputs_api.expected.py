"""Every TensorList call on pipeline outputs has its Batch counterpart."""

import numpy as np
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


@Prefetch(depth=2)
def pipe_def(*, batch_size=2):
    while True:
        yield ndd.random.uniform(range=(0, 1), shape=3, batch_size=batch_size), ndd.random.coin_flip(batch_size=batch_size)


def consume():
    pipe = pipe_def()
    values, flips = next(pipe)
    values = values.cpu()
    first = np.array(values.select(0))
    copied = np.array(values.select(1))
    count = flips.batch_size
    shapes = values.shape
    if (values.layout or "") == "":
        print(values.layout or "", values.ndim)
    dense = np.array(ndd.as_tensor(values))
    tensor = ndd.as_tensor(values)
    whole = np.array(ndd.as_tensor(flips))
    sample = values.select(1)
    print(list(sample.shape), sample.layout or "", np.array(sample))
    return first, copied, count, shapes, dense, tensor, whole
