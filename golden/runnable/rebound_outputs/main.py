"""Summaries of numpy arrays, read through a pipeline; the outputs are converted in place."""
import argparse

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def
def arrays_pipeline(root):
    arrays = fn.readers.numpy(file_root=root, random_shuffle=False, name="arrays")
    scaled = arrays * 2.0
    total = fn.reductions.sum(arrays)
    return scaled, fn.cast(total, dtype=types.INT32)


def to_percent(values):
    return np.multiply(values, 100.0)


def describe(batch, labels=None):
    # batch is a TensorList; labels may be missing
    for i in range(len(batch)):
        sample = np.array(batch.at(i))
        if labels:
            print("sample", i, sample.shape, "label", int(np.array(labels.at(i))))
        else:
            print("sample", i, sample.shape)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("--steps", type=int, default=2)
    args = parser.parse_args()

    pipe = arrays_pipeline(root=args.root, batch_size=2, num_threads=1, device_id=None)
    pipe.build()
    for step in range(args.steps):
        scaled, totals = pipe.run()
        describe(scaled, totals)
        describe(scaled)
        scaled = scaled.as_cpu().as_array()
        totals = totals.as_array()
        print("step", step, scaled.shape, scaled.dtype, float(scaled.sum()), totals.tolist())
        print("percent", to_percent(scaled)[0, 0].round(2).tolist())
    first = scaled[0]
    print("last first row", first[0].astype("float64").round(3).tolist())


if __name__ == "__main__":
    main()
