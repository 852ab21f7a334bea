"""A helper whose optional argument is a pipeline output or None tests it with `if x:`: a never-empty TensorList is
true, as a Batch always is, so the test becomes `x is not None`."""

import numpy as np
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def flips(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return fn.decoders.image(jpegs), labels


def describe(images, flipped=None):
    for i in range(len(images)):
        if flipped:
            print(images.at(i).shape, int(flipped.at(i)[0]))
        if not flipped:
            print(images.at(i).shape)
        print("flip" if flipped else "plain")


pipe = flips("images")
pipe.build()
images, flipped = pipe.run()
describe(images, flipped)
describe(images)
