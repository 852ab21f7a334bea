"""numpy is already imported under another name; `np` means something else here."""

import numpy
import nvidia.dali.fn as fn
from nvidia.dali import Pipeline

np = "not numpy"

pipe = Pipeline(batch_size=2, num_threads=1, device_id=None)
with pipe:
    pipe.set_outputs(fn.random.uniform(range=(0, 1)))
pipe.build()
print(pipe.run()[0].at(0), np)
