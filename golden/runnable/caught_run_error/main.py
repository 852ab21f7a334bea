"""A program that catches a pipeline's run error: reshaping arrays read from .npy files works for one shape and fails
for another; the program catches the RuntimeError of pipe.run() and goes on. Another pipeline is run until its source
ends, which pipe.run() signals with StopIteration."""
import sys

import numpy as np
from nvidia.dali import fn, pipeline_def

BATCHES = [[np.full((12,), step, dtype=np.float32)] * 2 for step in range(2)]


@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def reshaped(root, shape):
    arrays = fn.readers.numpy(file_root=root)
    return fn.reshape(arrays, shape=shape)


@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def doubled():
    data = fn.external_source(source=BATCHES, batch=True)
    return data * 2


def try_shape(root, shape):
    pipe = reshaped(root, shape)
    pipe.build()
    try:
        (out,) = pipe.run()
    except RuntimeError as error:
        print(shape, "failed:", "same size" in str(error))
        return
    print(shape, np.array(out.at(0)).shape, float(np.array(out.at(1)).sum()))


def main(root):
    try_shape(root, [5, 4])
    try_shape(root, [3, 4])
    try_shape(root, [20])
    counted = doubled()
    counted.build()
    steps, total = 0, 0.0
    while True:
        try:
            (twice,) = counted.run()
        except StopIteration:
            break
        steps += 1
        total += float(np.array(twice.at(0)).sum())
    print("doubled", steps, total)


if __name__ == "__main__":
    main(sys.argv[1])
