"""Branches of different lengths: each branch runs its own chain of operators on its samples only."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=4, num_threads=2, device_id=0, enable_conditionals=True)
def arrays(root):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy")
    level = fn.reductions.mean(data)
    if level > 5:
        # a long branch: scale, transpose, slice and a constant offset from an operator without input
        data = data * 2
        data = fn.transpose(data, perm=[1, 0])
        data = fn.slice(data, start=[0, 0], shape=[4, 4], out_of_bounds_policy="pad")
        offset = fn.random.uniform(values=[1.0])
        data = data + offset
        kind = fn.cast(level, dtype=types.INT32)
    elif level > 3:
        data = fn.slice(data, start=[0, 0], shape=[4, 4], out_of_bounds_policy="pad")
        kind = fn.cast(level * 0, dtype=types.INT32) - 1
    else:
        data = fn.slice(data, start=[1, 1], shape=[4, 4], out_of_bounds_policy="pad")
        kind = fn.cast(level * 0, dtype=types.INT32)
    return data, level, kind


if __name__ == "__main__":
    pipe = arrays(sys.argv[1])
    pipe.build()
    for step in range(3):
        data, level, kind = pipe.run()
        for i in range(len(data)):
            sample = np.array(data.at(i))
            print(f"step {step} sample {i} level {float(np.array(level.at(i))):.3f} kind {int(np.array(kind.at(i)))} "
                  f"shape {sample.shape} rows {sample.round(3).tolist()}")
