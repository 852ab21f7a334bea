"""types.Constant of a value a call computes: pipeline mode made the call once, when the graph was defined, so
the migration makes it once too (before the loop, or in __init__) and types the value at run time."""
import numpy as np
from nvidia.dali import fn, pipeline_def, types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


@Prefetch(depth=2)
def normalized(root, stats_file, *, batch_size=4):
    mean_value = np.load(stats_file)
    mean = ndd.Batch.broadcast(ndd.tensor(np.asarray(mean_value, dtype=None if isinstance(mean_value, np.generic) or np.ndim(mean_value) == 0 and isinstance(mean_value, np.ndarray) else {"float64": np.float32, "int64": np.int32, "uint64": np.uint32}.get(np.asarray(mean_value).dtype.name))), batch_size)
    std = ndd.Batch.broadcast(ndd.tensor(compute_std(stats_file), dtype=types.FLOAT), batch_size)
    constant_value = np.ones(3)
    reader = ndd.readers.Numpy(file_root=root)
    while True:
        for (data,) in reader.next_epoch(batch_size=batch_size):
            # inline in a step: still made once, before the loop
            yield (data - mean) / std, data * ndd.Batch.broadcast(ndd.tensor(constant_value, dtype=types.FLOAT), batch_size)


# dali-migrate: DM230 per_sample_weights stays in pipeline mode with everything that uses it: line 20: types.Constant has no dynamic-mode counterpart: the tool could not tell its value's type here: use ndd.Batch.broadcast(ndd.tensor(value, dtype=...), batch_size) with the type pipeline mode gave it (int32 for int arrays, float32 for float ones)
@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def per_sample_weights(root):
    data = fn.readers.numpy(file_root=root)
    # a call of the step's data: not a build-time value (left marked)
    # dali-migrate: DM103 types.Constant has no dynamic-mode counterpart: the tool could not tell its value's type here: use ndd.Batch.broadcast(ndd.tensor(value, dtype=...), batch_size) with the type pipeline mode gave it (int32 for int arrays, float32 for float ones)
    return data * types.Constant(np.sum(data)),


class Patches(ReaderStream):
    def __init__(self, batch_size, root, patch_size):
        self.batch_size = batch_size
        self.num_threads = 2
        self.device_id = 0
        self.seed = None
        self.input = ndd.readers.Numpy(file_root=root, max_batch_size=self.batch_size)
        if patch_size:
            shape_value = np.array(patch_size)
            self.shape = ndd.Batch.broadcast(ndd.tensor(np.asarray(shape_value, dtype=None if isinstance(shape_value, np.generic) or np.ndim(shape_value) == 0 and isinstance(shape_value, np.ndarray) else {"float64": np.float32, "int64": np.int32, "uint64": np.uint32}.get(np.asarray(shape_value).dtype.name))), self.batch_size)

    @Prefetch(depth=2)
    def steps(self):
        if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
            ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        while True:
            for (data,) in self.input.next_epoch(batch_size=self.batch_size):
                yield (ndd.cat(data, self.shape),)


def compute_std(path):
    return np.load(path).std()
