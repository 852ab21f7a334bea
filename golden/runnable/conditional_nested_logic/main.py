"""Nested per-sample ifs and and/or/not on pipeline data."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=5, num_threads=2, device_id=0, enable_conditionals=True)
def graded(list_file, root):
    jpegs, labels = fn.readers.file(file_list=list_file, file_root=root)
    images = fn.decoders.image(jpegs, output_type=types.GRAY)
    images = fn.resize(images, resize_x=2, resize_y=2)
    bright = fn.reductions.mean(images) > 127
    label = labels[0]
    first = label == 0
    if first or label == 2:
        if bright and not first:
            grade = label * 10 + 1
        else:
            grade = label * 10 + 2
        images = fn.flip(images, horizontal=1)
    else:
        grade = label * 10 + 3
        if not bright:
            images = fn.flip(images, vertical=1)
    both = bright and first
    either = bright or first
    neither = not either
    return images, labels, grade, both, either, neither


@pipeline_def(batch_size=5, num_threads=2, device_id=0, enable_conditionals=True)
def gated(list_file, root, strict):
    jpegs, labels = fn.readers.file(file_list=list_file, file_root=root)
    images = fn.decoders.image(jpegs, output_type=types.GRAY)
    images = fn.resize(images, resize_x=2, resize_y=2)
    bright = fn.reductions.mean(images) > 127
    # a plain Python value on the left: Python's own `and` (a false one sends every sample to the else branch)
    if strict and bright:
        images = fn.flip(images, vertical=1)
    else:
        images = fn.flip(images, horizontal=1)
    return images, labels


if __name__ == "__main__":
    pipe = graded(sys.argv[1], sys.argv[2])
    pipe.build()
    for step in range(3):
        images, labels, grade, both, either, neither = pipe.run()
        for i in range(len(images)):
            flags = [bool(np.array(x.at(i))) for x in (both, either, neither)]
            print(f"step {step} sample {i} label {int(labels.at(i)[0])} grade {int(np.array(grade.at(i)))} "
                  f"flags {flags} dtype {np.array(both.at(i)).dtype} pixels {np.array(images.at(i)).ravel().tolist()}")
    for strict in (True, False):
        pipe = gated(sys.argv[1], sys.argv[2], strict)
        pipe.build()
        images, labels = pipe.run()
        print(f"strict {strict}: {[np.array(images.at(i)).ravel().tolist() for i in range(len(images))]}")
