"""A training script's helpers that take a pipeline's outputs as their parameters, handed over with
`helper(*pipe.run())`: after a leading step number, with a keyword after the unpacked outputs, and into a helper
whose last parameter has a default the outputs fill."""

import sys

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=4, num_threads=2, device_id=None)
def images_pipeline(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    images = fn.resize(images, resize_x=8, resize_y=8)
    return images, labels, fn.cast(labels, dtype=types.FLOAT) * 0.5


def describe(images, labels, halves, *, scale=1.0):
    array = np.array(images.as_tensor())
    print("images", array.shape, round(float(array.mean()) * scale, 3), "labels", labels.as_array().ravel().tolist(),
          "halves", [float(np.array(halves.at(i))[0]) for i in range(len(halves))])


def at_step(step, images, labels, halves=None):
    print("step", step, images.shape()[0], labels.layout() or "-", halves is not None)


def main(root):
    pipe = images_pipeline(root)
    pipe.build()
    describe(*pipe.run())
    describe(*pipe.run(), scale=2.0)
    for step in range(2):
        at_step(step, *pipe.run())


if __name__ == "__main__":
    main(sys.argv[1])
