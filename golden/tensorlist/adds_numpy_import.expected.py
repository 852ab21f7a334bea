"""np.array(...) is introduced, so numpy is imported (before the DALI imports)."""

import numpy as np
import nvidia.dali.experimental.dynamic as ndd


def pipe_def(*, batch_size=2):
    while True:
        yield (ndd.random.uniform(range=(0, 1), shape=3, batch_size=batch_size),)


pipe = pipe_def()
(out,) = next(pipe)
print(np.array(out.cpu().select(0)))
