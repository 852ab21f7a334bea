"""pipe.set_outputs(T1, *inputs, *params): one output per element of the starred lists, as pipeline mode gave them
(the migration used to yield the lists themselves as outputs, nested one level too deep)."""

import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


def make(has_input, use_center, batch_size=2):
    @Prefetch(depth=2)
    def pipe_steps(*, batch_size=batch_size, seed=3):
        ndd.random.set_seed(seed)
        while True:
            inputs = [ndd.random.uniform(range=(-1, 1), shape=(2, 3), batch_size=batch_size)] if has_input else []
            params = [ndd.random.uniform(range=(-2, 2), shape=[2, 1], batch_size=batch_size)]
            if use_center:
                params.append(ndd.random.uniform(range=(-10, 10), shape=[2], batch_size=batch_size))
            T1 = ndd.transforms.shear(*inputs, shear=params[0])
            yield tuple((T1, *inputs, *params))
    pipe = pipe_steps()
    return pipe
