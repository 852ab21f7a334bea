"""Per-sample branches (enable_conditionals) that return in one pipeline, a plain pipeline next to it."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=4, num_threads=2, device_id=0, enable_conditionals=True)
def branchy(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.GRAY)
    images = fn.resize(images, resize_x=4, resize_y=4)
    if labels[0] == 1:  # a branch that returns: the migration keeps this pipeline (DM213)
        return fn.flip(images, horizontal=1), labels
    return fn.flip(images, vertical=1), labels


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def straight(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.GRAY)
    return fn.resize(images, resize_x=4, resize_y=4), labels


def run_both(pipes, steps):
    for p in pipes:
        p.build()
    for step in range(steps):
        (b_images, b_labels), (s_images, s_labels) = [p.run() for p in pipes]
        for i in range(len(b_images)):
            print(f"step {step} sample {i} label {int(b_labels.at(i)[0])} "
                  f"branchy {int(b_images.at(i).sum())} straight {int(s_images.at(i).sum())}")


if __name__ == "__main__":
    run_both([branchy(sys.argv[1]), straight(sys.argv[1])], 2)
