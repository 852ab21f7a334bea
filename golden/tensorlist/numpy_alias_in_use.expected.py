"""numpy is already imported under another name; `np` means something else here."""

import numpy
from nvidia.dali import Pipeline
import nvidia.dali.experimental.dynamic as ndd

np = "not numpy"

pipe = Pipeline(batch_size=2, num_threads=1, device_id=None)
with pipe:
    pipe.set_outputs(ndd.random.uniform(range=(0, 1)))
pipe.build()
print(numpy.array(pipe.run()[0].select(0)), np)
