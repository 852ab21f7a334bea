"""Constants whose values a call computes: a statistics helper, np.linspace, np.array of a shape kept on the
pipeline object. Pipeline mode called each once, when the graph was defined; the count of calls is printed."""
import sys

import numpy as np
from nvidia.dali import Pipeline, fn, ops, pipeline_def, types

CALLS = []


def column_means(stats):
    """A helper the constant's value comes from (a list of float64 numbers: pipeline mode made them float32)."""
    CALLS.append(len(stats))
    return [float(s) / 4.0 for s in stats]


def row_offsets(count):
    CALLS.append(count)
    return np.arange(count, dtype=np.int64).reshape(count, 1)  # int64: pipeline mode made it int32


@pipeline_def(batch_size=3, num_threads=2, device_id=None)
def normalized(root, stats):
    data = fn.readers.numpy(file_root=root)
    means = types.Constant(column_means(stats))
    scale = types.Constant(np.linspace(0.5, 1.0, 5), dtype=types.FLOAT)
    # used where it is made, inside a step's expression: still made once
    shifted = fn.cast(data, dtype=types.INT16) + types.Constant(row_offsets(4))  # int16 + int32 gives int32
    return (data - means) * scale, shifted, fn.cat(data, types.Constant(np.full((1, 5), 2.5)), axis=0), \
        types.Constant(row_offsets(2))  # an output of its own


class Patches(Pipeline):
    """A Pipeline subclass whose constants are made in __init__ and in define_graph from calls."""

    def __init__(self, batch_size, root, patch_size):
        super().__init__(batch_size, 2, None)
        self.patch_size = patch_size
        self.input = ops.readers.Numpy(file_root=root)
        self.crop_shape = types.Constant(np.array(self.patch_size), dtype=types.FLOAT)
        self.bias = types.Constant(row_offsets(4) * 3)

    def define_graph(self):
        data = self.input()
        weights = types.Constant(column_means([1, 2, 3, 4, 5]))
        return fn.cast(data, dtype=types.INT32) * weights + self.bias, fn.cat(data[0], self.crop_shape)


def show(name, batch):
    arr = np.stack([np.asarray(batch.at(i)) for i in range(len(batch))])
    print(name, arr.shape, arr.dtype, arr.sum().round(3), arr.ravel()[:6].round(3).tolist())


if __name__ == "__main__":
    pipe = normalized(sys.argv[1], [1, 2, 3, 4, 5])
    pipe.build()
    for step in range(3):
        for name, out in zip(("normalized", "shifted", "stacked", "offsets"), pipe.run()):
            show(f"{step} {name}", out)
    pipe = Patches(2, sys.argv[1], [3, 2, 1, 0, 4])
    pipe.build()
    for step in range(3):
        for name, out in zip(("weighted", "with shape"), pipe.run()):
            show(f"{step} {name}", out)
    print("calls", CALLS)
