"""numpy is already imported under another name; `np` means something else here."""

import numpy
import nvidia.dali.experimental.dynamic as ndd

np = "not numpy"


def pipe_steps(*, batch_size=2, num_threads=1, device_id=None, seed=None):
    if num_threads is not None and num_threads > ndd.get_num_threads():
        ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
    if seed is not None:
        ndd.random.set_seed(seed)
    while True:
        yield (ndd.random.uniform(range=(0, 1), batch_size=batch_size),)


pipe = pipe_steps()
print(numpy.array(next(pipe)[0].select(0)), np)
