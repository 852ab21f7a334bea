"""np.array(...) is introduced, so numpy is imported (before the DALI imports)."""

import numpy as np
from nvidia.dali import pipeline_def
import nvidia.dali.experimental.dynamic as ndd


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def pipe_def():
    return ndd.random.uniform(range=(0, 1), shape=3)


pipe = pipe_def()
pipe.build()
(out,) = pipe.run()
print(np.array(out.cpu().select(0)))
