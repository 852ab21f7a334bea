"""A list of pipelines, one per resolution, built in a loop and run side by side."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types

SIZES = [8, 12]


@pipeline_def(batch_size=3, num_threads=2, device_id=0)
def scaled(root, size):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
    return fn.resize(images, resize_x=size, resize_y=size), labels


def make(root, i):
    return scaled(root, SIZES[i])


if __name__ == "__main__":
    pipes = [make(sys.argv[1], i) for i in range(2)]
    for p in pipes:
        p.build()
    for step in range(2):
        results = [p.run() for p in pipes]
        for size, (images, labels) in zip(SIZES, results):
            arr = images.as_array()
            print(f"step {step} size {size}: {arr.shape} mean {arr.mean():.4f} labels {labels.as_array().ravel().tolist()}")
