"""Pipeline() objects filled in a `with` block and returned by a factory, then set_outputs."""

import sys

import numpy as np
from nvidia.dali import fn, types
from nvidia.dali.pipeline import Pipeline


def create_pipeline(file_root, file_list, batch_size=3):
    pipe = Pipeline(batch_size=batch_size, num_threads=2, device_id=0)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=file_root, file_list=file_list, name="Reader")
        images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
        images = fn.resize(images, resize_shorter=12)
        pipe.set_outputs(images, labels)
    return pipe


def summarize(pipe, steps):
    rows = []
    for _ in range(steps):
        images, labels = pipe.run()
        shapes = [tuple(images.at(i).shape) for i in range(len(images))]
        rows.append((shapes, labels.as_array().ravel().tolist()))
    return rows


if __name__ == "__main__":
    root, file_list = sys.argv[1], sys.argv[2]
    pipe = create_pipeline(root, file_list)
    pipe.build()
    print("epoch size", pipe.epoch_size("Reader"))
    for shapes, labels in summarize(pipe, 4):
        print("shapes", shapes, "labels", labels)
