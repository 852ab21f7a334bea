"""np.array(...) is introduced, so numpy is imported (before the DALI imports)."""

import numpy as np
import nvidia.dali.experimental.dynamic as ndd


def pipe_def(*, batch_size=2, num_threads=1, device_id=None, seed=None):
    if num_threads is not None and num_threads > ndd.get_num_threads():
        ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
    if seed is not None:
        ndd.random.set_seed(seed)
    while True:
        yield (ndd.random.uniform(range=(0, 1), shape=3, batch_size=batch_size),)


pipe = pipe_def()
(out,) = next(pipe)
print(np.array(out.cpu().select(0)))
