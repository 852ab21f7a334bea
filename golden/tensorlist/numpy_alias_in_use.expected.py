"""numpy is already imported under another name; `np` means something else here."""

import numpy
import nvidia.dali.experimental.dynamic as ndd

np = "not numpy"


def pipe_steps(*, batch_size=2):
    while True:
        yield (ndd.random.uniform(range=(0, 1), batch_size=batch_size),)


pipe = pipe_steps()
print(numpy.array(next(pipe)[0].select(0)), np)
