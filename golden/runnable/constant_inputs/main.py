"""Constants as operator inputs: types.Constant and fn.constant mixed into arithmetic and fn.cat."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=3, num_threads=2, device_id=0)
def const_pipe(root):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy")
    scale = types.Constant(np.float32(4.0))
    offset = fn.constant(fdata=[0.5, 0.25, 0.0, -0.25, -0.5], shape=[5], dtype=types.FLOAT)
    scaled = data * scale + offset
    header = fn.constant(fdata=[9.0] * 5, shape=[1, 5], dtype=types.FLOAT)
    return fn.cat(header, scaled, axis=0)


if __name__ == "__main__":
    pipe = const_pipe(sys.argv[1])
    pipe.build()
    for step in range(2):
        (out,) = pipe.run()
        arr = out.as_array()
        print(f"step {step}: {arr.shape} {arr.dtype} row0 {arr[0, 0].tolist()} row1 {arr[0, 1].tolist()} "
              f"total {arr.sum():.3f}")
