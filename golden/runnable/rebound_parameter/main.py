"""Label weights computed inside the pipeline when the caller gives none.

The pipeline function takes an optional weight and, when it is None, computes one from the labels it reads
(`if weight is None: weight = labels * 2 + 1`), as training scripts do with a default that depends on the data;
a validation pipeline built in a function's `with pipe:` block adds an offset taken from the labels only when a
flag asks for it. Pipeline mode ran the body once, so every run() computed the weight from that step's labels;
the program prints each step's labels and weights, with and without a weight given."""

import argparse

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import Pipeline, pipeline_def


@pipeline_def(batch_size=3, num_threads=1, device_id=0)
def weighted(data_dir, weight=None):
    jpegs, labels = fn.readers.file(file_root=data_dir)
    images = fn.decoders.image(jpegs, device="mixed")
    labels = fn.cast(labels, dtype=types.FLOAT)
    if weight is None:
        weight = labels * 2 + 1
    return labels, labels * 0 + weight, images


def validation_offsets(data_dir, from_labels, offset=0.5, steps=4):
    pipe = Pipeline(batch_size=4, num_threads=1, device_id=0)
    with pipe:
        _, labels = fn.readers.file(file_root=data_dir)
        labels = fn.cast(labels, dtype=types.FLOAT)
        if from_labels:
            offset = labels * 10 + offset
        pipe.set_outputs(labels, labels * 0 + offset)
    pipe.build()
    for step in range(steps):
        labels, offsets = pipe.run()
        print(f"validation from_labels={from_labels} step {step}: labels {values(labels)} offsets {values(offsets)}")


def values(batch):
    return [float(np.array(sample).reshape(-1)[0]) for sample in batch.as_cpu()]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data_dir")
    args = parser.parse_args()
    for weight in (None, 4.0):
        pipe = weighted(args.data_dir, weight)
        pipe.build()
        for step in range(5):
            labels, weights, images = pipe.run()
            print(f"weight={weight} step {step}: labels {values(labels)} weights {values(weights)} "
                  f"image ranks {sorted({np.array(s).ndim for s in images.as_cpu()})}")
    validation_offsets(args.data_dir, True)
    validation_offsets(args.data_dir, False)


if __name__ == "__main__":
    main()
