"""A TFRecord reader whose outputs are named by its features: the reader gives a dict, read by key.

The program first writes the TFRecord (and its index) from the JPEGs of a folder, labels 100 + i."""

import argparse
import os
import tempfile

import nvidia.dali.fn as fn
import nvidia.dali.tfrecord as tfrec
from nvidia.dali import pipeline_def

from write_tfrecord import write


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def tfrecord_pipeline(path, index_path):
    inputs = fn.readers.tfrecord(
        path=path,
        index_path=index_path,
        features={
            "image/encoded": tfrec.FixedLenFeature((), tfrec.string, ""),
            "image/class/label": tfrec.FixedLenFeature([1], tfrec.int64, -1)})
    images = fn.decoders.image(inputs["image/encoded"], device="mixed")
    images = fn.resize(images, resize_x=5, resize_y=5)
    return images, inputs["image/class/label"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("images")
    parser.add_argument("--steps", type=int, default=6)
    args = parser.parse_args()
    files = sorted(os.path.join(folder, name) for folder, _, names in os.walk(args.images) for name in names
                   if name.endswith(".jpg"))
    with tempfile.TemporaryDirectory() as scratch:
        path, index = os.path.join(scratch, "train.tfrecord"), os.path.join(scratch, "train.idx")
        jpegs = []
        for name in files:
            with open(name, "rb") as f:
                jpegs.append(f.read())
        write(jpegs, [100 + i for i in range(len(jpegs))], path, index)
        pipe = tfrecord_pipeline(path, index)
        pipe.build()
        for step in range(args.steps):
            images, labels = pipe.run()
            images = images.as_cpu()
            sums = [int(images.at(i).sum()) for i in range(len(images))]
            print(f"step {step}: labels {labels.as_array().reshape(-1).tolist()} pixel sums {sums}")


if __name__ == "__main__":
    main()
