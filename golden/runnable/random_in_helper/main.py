"""A random augmentation that lives in a helper module and is called by the pipeline; the pipeline seed
makes it reproducible from run to run."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types

from augment import brightness, random_rotate


@pipeline_def(batch_size=4, num_threads=2, device_id=0, seed=1234)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
    images = fn.resize(images, resize_x=16, resize_y=16)
    images = brightness(images, 0.5)
    rotated, angle = random_rotate(images)
    return images, rotated, angle, labels


def angles_of(root, steps):
    pipe = train_pipe(root)
    pipe.build()
    return [pipe.run()[2].as_array().ravel().copy() for _ in range(steps)]


if __name__ == "__main__":
    # the pipeline seed makes the random angles reproducible: two fresh pipelines draw the same ones
    first, second = angles_of(sys.argv[1], 2), angles_of(sys.argv[1], 2)
    print("reproducible", all(np.array_equal(a, b) for a, b in zip(first, second)))
    pipe = train_pipe(sys.argv[1])
    pipe.build()
    for step in range(2):
        images, rotated, angles, labels = pipe.run()
        print(f"step {step}: images {images.as_array().shape} sum {int(images.as_array().astype(np.int64).sum())} "
              f"labels {labels.as_array().ravel().tolist()}")
        print(f"step {step}: rotated {rotated.as_array().shape} {rotated.as_array().dtype}")
        print(f"step {step} random: angles {np.round(angles.as_array().ravel(), 3).tolist()} "
              f"rotated sum {int(rotated.as_array().astype(np.int64).sum())}")
