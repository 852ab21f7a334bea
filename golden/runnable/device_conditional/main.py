"""The decoder's device chosen at run time: CPU when asked (or without a GPU), else the mixed decoder."""

import argparse

import numpy as np
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=5, num_threads=2, device_id=0)
def decode_pipe(root, cpu_only):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="cpu" if cpu_only else "mixed", output_type=types.RGB)
    return fn.resize(images, resize_x=7, resize_y=7), labels


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--cpu", action="store_true")
    args = parser.parse_args()
    pipe = decode_pipe(args.data, args.cpu)
    pipe.build()
    for _ in range(2):
        images, labels = pipe.run()
        images = images.as_cpu()
        print(images.as_array().shape, int(images.as_array().sum()), labels.as_array().ravel().tolist())
