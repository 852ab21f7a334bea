"""A pipeline with no reader: random data only, one output."""

import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


@Prefetch(depth=2)
def noise_pipe(shape, *, batch_size=8):
    while True:
        noise = ndd.random.normal(shape=shape, batch_size=batch_size)
        yield (noise,)


def collect(steps):
    pipe = noise_pipe([2, 3])
    out = []
    for _ in range(steps):
        (noise,) = next(pipe)
        out.append((noise,))
    return out
