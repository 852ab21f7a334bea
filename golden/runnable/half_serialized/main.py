"""Two pipelines in one script: one is also saved for DALI's C++ API (pipe.serialize()), one is not."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=3, num_threads=2, device_id=0)
def inverted_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.GRAY)
    images = fn.resize(images, resize_x=4, resize_y=4)
    return 255 - images, labels


@pipeline_def(batch_size=3, num_threads=2, device_id=0)
def plain_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    return fn.resize(images, resize_x=4, resize_y=4), labels


def describe(name, images, labels):
    arr = images.as_array()
    print(f"{name}: {arr.shape} sum {int(arr.astype(np.int64).sum())} labels {labels.as_array().ravel().tolist()}")
    return arr


if __name__ == "__main__":
    inverted, plain = inverted_pipe(sys.argv[1]), plain_pipe(sys.argv[1])
    inverted.build()
    plain.build()
    saved = inverted.serialize()  # for DALI's C++ API
    print("serialized", len(saved) > 0)
    for step in range(2):
        a = describe("inverted", *inverted.run())
        b = describe("plain", *plain.run())
        print("inverse matches", bool(np.array_equal(a, 255 - b)))
