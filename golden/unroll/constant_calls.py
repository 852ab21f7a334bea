"""types.Constant of a value a call computes: pipeline mode made the call once, when the graph was defined, so
the migration makes it once too (before the loop, or in __init__) and types the value at run time."""
import numpy as np
from nvidia.dali import Pipeline, fn, ops, pipeline_def, types


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def normalized(root, stats_file):
    data = fn.readers.numpy(file_root=root)
    mean = types.Constant(np.load(stats_file))
    std = types.Constant(compute_std(stats_file), dtype=types.FLOAT)
    # inline in a step: still made once, before the loop
    return (data - mean) / std, data * types.Constant(np.ones(3), dtype=types.FLOAT)


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def per_sample_weights(root):
    data = fn.readers.numpy(file_root=root)
    # a call of the step's data: not a build-time value (left marked)
    return data * types.Constant(np.sum(data)),


class Patches(Pipeline):
    def __init__(self, batch_size, root, patch_size):
        super().__init__(batch_size, 2, 0)
        self.input = ops.readers.Numpy(file_root=root)
        if patch_size:
            self.shape = types.Constant(np.array(patch_size))

    def define_graph(self):
        data = self.input()
        return fn.cat(data, self.shape),


def compute_std(path):
    return np.load(path).std()
