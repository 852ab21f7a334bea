"""Decodes and resizes a folder of JPEGs, and hands the outputs to a helper of another module (checks.summarize),
which reads them with the TensorList API. Another pipeline's outputs are read here only."""
import sys

import numpy as np
from nvidia.dali import fn, pipeline_def

from checks import summarize


@pipeline_def(batch_size=3, num_threads=1, device_id=0)
def images(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    decoded = fn.decoders.image(jpegs, device="cpu")
    return fn.resize(decoded, size=[24, 32]), labels


@pipeline_def(batch_size=3, num_threads=1, device_id=0)
def labels_only(root):
    _, labels = fn.readers.file(file_root=root)
    return labels


def main(root):
    pipe = images(root)
    pipe.build()
    for _ in range(2):
        summarize(pipe.run(), ["images", "labels"])
    other = labels_only(root)
    other.build()
    for step in range(4):
        (labels,) = other.run()
        print("labels", step, [int(np.array(labels.at(i))[0]) for i in range(3)])


if __name__ == "__main__":
    main(sys.argv[1])
