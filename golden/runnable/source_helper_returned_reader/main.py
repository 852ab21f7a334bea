"""Pipelines built from another module's functions that return a reader call directly (``return fn.readers.file(...)``):
one unpacks the outputs, one indexes them; the program asks the named reader's epoch size and steps past an epoch."""
import argparse

from nvidia.dali import fn, pipeline_def

import graph_parts


@pipeline_def(batch_size=3, num_threads=2, device_id=None)
def unpacking_pipe(root):
    jpegs, labels = graph_parts.files(root)
    images = fn.resize(fn.decoders.image(jpegs), resize_x=8, resize_y=8)
    return images, labels


@pipeline_def(batch_size=4, num_threads=2, device_id=None)
def indexing_pipe(root):
    outputs = graph_parts.shuffled_files(root)
    images = fn.resize(fn.decoders.image(outputs[0]), resize_x=6, resize_y=6)
    return images, outputs[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("images")
    args = parser.parse_args()
    pipe = unpacking_pipe(args.images)
    pipe.build()
    print("epoch size", pipe.epoch_size("Reader"))
    for step in range(5):
        images, labels = pipe.run()
        print("unpacking", step, images.as_array().shape, int(images.as_array().sum()), labels.as_array().ravel().tolist())
    pipe = indexing_pipe(args.images)
    pipe.build()
    for step in range(4):
        images, labels = pipe.run()
        print("indexing", step, images.as_array().shape, int(images.as_array().sum()), labels.as_array().ravel().tolist())


if __name__ == "__main__":
    main()
