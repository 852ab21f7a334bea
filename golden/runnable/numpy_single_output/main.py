"""A reader with a single output, bound to one name and iterated for a whole epoch."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=3, num_threads=2, device_id=0)
def arrays_pipe(root):
    arrays = fn.readers.numpy(file_root=root, file_filter="*.npy", name="Arrays")
    return fn.transpose(arrays, perm=[1, 0])


if __name__ == "__main__":
    pipe = arrays_pipe(sys.argv[1])
    pipe.build()
    epoch = pipe.epoch_size("Arrays")
    for step in range(epoch // 3):
        arrays = pipe.run()[0]
        stack = arrays.as_array()
        print(f"step {step}: {stack.shape} {stack.dtype} row sums {np.round(stack.sum(axis=(0, 2)), 3).tolist()}")
