"""Per-sample flips with enable_conditionals: the class decides how each image is flipped."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=4, num_threads=2, device_id=0, enable_conditionals=True)
def flipped(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    images = fn.resize(images, resize_x=3, resize_y=3)
    # class 1 is mirrored, class 0 turned upside down
    if labels[0] == 1:
        images = fn.flip(images, horizontal=1)
    else:
        images = fn.flip(images, vertical=1)
    return images, labels


@pipeline_def(batch_size=3, num_threads=2, device_id=0, enable_conditionals=True)
def mirrored_only(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    images = fn.resize(images, resize_x=3, resize_y=3)
    if labels[0] == 0:
        images = fn.flip(images, horizontal=1)
    return images, labels


def show(name, pipe, steps):
    pipe.build()
    for step in range(steps):
        images, labels = pipe.run()
        for i in range(len(images)):
            rows = np.array(images.at(i))[..., 0].tolist()
            print(f"{name} step {step} sample {i} label {int(labels.at(i)[0])} rows {rows}")


if __name__ == "__main__":
    show("flipped", flipped(sys.argv[1]), 3)
    show("mirrored", mirrored_only(sys.argv[1]), 4)
