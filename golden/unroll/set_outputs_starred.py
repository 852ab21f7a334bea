"""pipe.set_outputs(T1, *inputs, *params): one output per element of the starred lists, as pipeline mode gave them
(the migration used to yield the lists themselves as outputs, nested one level too deep)."""

import nvidia.dali.fn as fn
from nvidia.dali.pipeline import Pipeline


def make(has_input, use_center, batch_size=2):
    pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None, seed=3)
    with pipe:
        inputs = [fn.random.uniform(range=(-1, 1), shape=(2, 3))] if has_input else []
        params = [fn.random.uniform(range=(-2, 2), shape=[2, 1])]
        if use_center:
            params.append(fn.random.uniform(range=(-10, 10), shape=[2]))
        T1 = fn.transforms.shear(*inputs, shear=params[0])
        pipe.set_outputs(T1, *inputs, *params)
    return pipe
