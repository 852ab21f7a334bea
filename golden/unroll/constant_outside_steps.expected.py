"""types.Constant built outside the pipeline's steps (a dataset class's __init__) over an array computed at run
time: its type is decided at run time as pipeline mode decided it. A constant read only where it meets batch
data becomes the tensor (dynamic mode broadcasts it there); one that is an output on its own, or whose value is
a call, stays marked."""

import numpy as np
import nvidia.dali as dali
import nvidia.dali.experimental.dynamic as ndd


class Grid:
    def __init__(self, batch_size, size):
        self.batch_size = batch_size
        self.grid = np.stack(np.meshgrid(np.arange(size), np.arange(size)))
        self.grid_dali = ndd.tensor(np.asarray(self.grid, dtype=None if isinstance(self.grid, np.generic) or np.ndim(self.grid) == 0 and isinstance(self.grid, np.ndarray) else {"float64": np.float32, "int64": np.int32, "uint64": np.uint32}.get(np.asarray(self.grid).dtype.name)))
        # dali-migrate: DM103 types.Constant has no dynamic-mode counterpart: it is built outside any pipeline step the tool migrates, and read where no batch data meets it (an output of its own, or a graph that is not visible or not migrated here); where it is a batch of the pipeline's batch size, it becomes ndd.Batch.broadcast(ndd.tensor(np.asarray(self.grid, dtype=None if isinstance(self.grid, np.generic) or np.ndim(self.grid) == 0 and isinstance(self.grid, np.ndarray) else {"float64": np.float32, "int64": np.int32, "uint64": np.uint32}.get(np.asarray(self.grid).dtype.name))), batch_size)
        self.alone = dali.types.Constant(self.grid)
        # dali-migrate: DM103 types.Constant has no dynamic-mode counterpart: the tool could not tell its value's type here: use ndd.Batch.broadcast(ndd.tensor(value, dtype=...), batch_size) with the type pipeline mode gave it (int32 for int arrays, float32 for float ones)
        self.computed = dali.types.Constant(np.ones(size))
        self.pipe = self._create_pipeline()

    def _create_pipeline(self):
        def pipe_steps(*, batch_size=self.batch_size):
            if ndd.get_num_threads() < 2:
                ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4
            source = lambda: [np.zeros((2, 3, 3), np.float32)] * self.batch_size
            while True:
                try:
                    data = source()
                except StopIteration:
                    return  # the source is exhausted: pipe.run() raised StopIteration from here on
                data = ndd.as_batch(data)
                shifted = data + self.grid_dali
                joined = ndd.cat(data, self.grid_dali * 2, axis=0)
                yield shifted, joined, self.alone, data * self.computed
        pipe = pipe_steps()
        return pipe
