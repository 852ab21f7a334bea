"""A helper whose optional argument is a pipeline output or None tests it with `if x:`: a never-empty TensorList is
true, as a Batch always is, so the test becomes `x is not None`."""

import numpy as np
import nvidia.dali.experimental.dynamic as ndd


def flips(root, *, batch_size=2):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield ndd.decoders.image(jpegs), labels


def describe(images, flipped=None):
    for i in range(images.batch_size):
        if flipped is not None:
            print(np.array(images.select(i)).shape, int(np.array(flipped.select(i))[0]))
        if flipped is None:
            print(np.array(images.select(i)).shape)
        print("flip" if flipped is not None else "plain")


pipe = flips("images")
images, flipped = next(pipe)
describe(images, flipped)
describe(images)
