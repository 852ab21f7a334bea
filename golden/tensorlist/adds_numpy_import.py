"""np.array(...) is introduced, so numpy is imported (before the DALI imports)."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def pipe_def():
    return fn.random.uniform(range=(0, 1), shape=3)


pipe = pipe_def()
pipe.build()
(out,) = pipe.run()
print(out.as_cpu().at(0))
