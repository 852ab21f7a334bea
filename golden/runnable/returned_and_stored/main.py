"""Batches returned from functions, unpacked three at a time, and kept in lists, dicts and attributes."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=3, num_threads=2, device_id=0)
def triple_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    small = fn.resize(images, resize_x=8, resize_y=8)
    flat = fn.cast(small, dtype=types.FLOAT) / 255.0
    return small, flat, labels


def next_batch(pipe):
    return pipe.run()


class History:
    def __init__(self):
        self.steps = []
        self.last_labels = None

    def record(self, outputs):
        self.steps.append(outputs)
        self.last_labels = outputs[2]


def main(root):
    pipe = triple_pipe(root)
    pipe.build()
    history = History()
    by_name = {}
    for step in range(3):
        small, flat, labels = next_batch(pipe)
        by_name[f"step{step}"] = {"small": small, "flat": flat, "labels": labels}
        history.record((small, flat, labels))
    for key, outputs in by_name.items():
        flat = outputs["flat"].as_array()
        print(key, "small", outputs["small"].as_array().shape, "flat mean", round(float(flat.mean()), 5))
    print("kept", len(history.steps), "steps")
    print("last labels", history.last_labels.as_array().ravel().tolist())
    first_small = history.steps[0][0]
    print("first sample sum", int(first_small.at(0).astype(np.int64).sum()))


if __name__ == "__main__":
    main(sys.argv[1])
