"""Every TensorList call on pipeline outputs has its Batch counterpart."""

import numpy as np
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def pipe_def():
    return fn.random.uniform(range=(0, 1), shape=3), fn.random.coin_flip()


def consume():
    pipe = pipe_def()
    pipe.build()
    values, flips = pipe.run()
    values = values.as_cpu()
    first = values.at(0)
    copied = np.asarray(values.at(1))
    count = len(flips)
    shapes = values.shape()
    if values.layout() == "":
        print(values.layout(), values.ndim())
    dense = values.as_array()
    tensor = values.as_tensor()
    whole = np.asarray(flips)
    sample = values[1]
    print(sample.shape(), sample.layout(), np.array(sample))
    return first, copied, count, shapes, dense, tensor, whole
