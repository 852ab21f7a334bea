"""Random horizontal flips: count how many samples the coin flip chose, per batch."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=5, num_threads=2, device_id=0, seed=2024)
def flip_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
    images = fn.resize(images, resize_x=6, resize_y=6)
    do_flip = fn.random.coin_flip(probability=0.5)
    return fn.flip(images, horizontal=do_flip), do_flip, labels


if __name__ == "__main__":
    pipe = flip_pipe(sys.argv[1])
    pipe.build()
    for step in range(3):
        images, flips, labels = pipe.run()
        flips = flips.as_array().ravel()
        print(f"step {step}: {images.as_array().shape} labels {labels.as_array().ravel().tolist()}")
        print(f"flips step {step}: {int(flips.sum())} of {len(flips)} {flips.tolist()}")
