"""An external_source fed with feed_input() each step, next to a reader pipeline."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=2, num_threads=2, device_id=0, exec_async=False, exec_pipelined=False)
def fed_pipe():
    data = fn.external_source(name="INPUT", dtype=types.FLOAT)
    return fn.normalize(data, mean=1.0, stddev=2.0)


@pipeline_def(batch_size=2, num_threads=2, device_id=0)
def read_pipe(root):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy")
    return data * 2.0


if __name__ == "__main__":
    fed = fed_pipe()
    fed.build()
    reader = read_pipe(sys.argv[1])
    reader.build()
    for step in range(3):
        (doubled,) = reader.run()
        batch = [np.array(doubled.at(i)) for i in range(len(doubled))]
        fed.feed_input("INPUT", batch)
        (normalized,) = fed.run()
        out = normalized.as_array()
        print(f"step {step}: doubled sum {sum(float(b.sum()) for b in batch):.3f} normalized {out.shape} "
              f"first row {np.round(out[0, 0], 4).tolist()}")
