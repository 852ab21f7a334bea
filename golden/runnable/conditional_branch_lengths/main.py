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
    # values with a structure: a tuple and a dict assigned in both branches, plain constants among them
    if level > 7:
        pair = (level * 2, level)
        info = {"flag": np.array(1), "scale": level}
    else:
        pair = (level, level * 0)
        info = {"flag": np.array(0), "scale": level * 10}
    first, second = pair
    return data, level, kind, first, second, info["flag"], info["scale"]


if __name__ == "__main__":
    pipe = arrays(sys.argv[1])
    pipe.build()
    for step in range(3):
        data, level, kind, first, second, flag, scale = pipe.run()
        for i in range(len(data)):
            sample = np.array(data.at(i))
            print(f"step {step} sample {i} level {float(np.array(level.at(i))):.3f} kind {int(np.array(kind.at(i)))} "
                  f"shape {sample.shape} rows {sample.round(3).tolist()}")
            extra = [np.array(x.at(i)) for x in (first, second, flag, scale)]
            print(f"step {step} sample {i} pair {[float(x) for x in extra[:2]]} flag {int(extra[2])} "
                  f"{extra[2].dtype} scale {float(extra[3]):.3f}")
