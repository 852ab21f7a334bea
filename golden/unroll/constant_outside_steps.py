"""types.Constant built outside the pipeline's steps (a dataset class's __init__) over an array computed at run
time: its type is decided at run time as pipeline mode decided it. A constant read only where it meets batch
data becomes the tensor (dynamic mode broadcasts it there); one that is an output on its own, or whose value is
a call, stays marked."""

import numpy as np
import nvidia.dali as dali


class Grid:
    def __init__(self, batch_size, size):
        self.batch_size = batch_size
        self.grid = np.stack(np.meshgrid(np.arange(size), np.arange(size)))
        self.grid_dali = dali.types.Constant(self.grid)
        self.alone = dali.types.Constant(self.grid)
        self.computed = dali.types.Constant(np.ones(size))
        self.pipe = self._create_pipeline()

    def _create_pipeline(self):
        pipe = dali.Pipeline(batch_size=self.batch_size, num_threads=2, device_id=None)
        with pipe:
            data = dali.fn.external_source(source=lambda: [np.zeros((2, 3, 3), np.float32)] * self.batch_size)
            shifted = data + self.grid_dali
            joined = dali.fn.cat(data, self.grid_dali * 2, axis=0)
            pipe.set_outputs(shifted, joined, self.alone, data * self.computed)
        return pipe
