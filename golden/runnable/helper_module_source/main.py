"""A pipeline assembled from another module's graph parts: the source comes from a helper that holds the
reader, the augmentations from helpers that take the pipeline's data."""
import argparse

from nvidia.dali import pipeline_def

import graph_parts

CROP = [8, 6]


@pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=11)
def train_pipe(root, shard_id):
    images, labels = graph_parts.labelled_images(root, 12, shard_id=shard_id, num_shards=2)
    flipped, flips = graph_parts.flip_all(images)
    return graph_parts.darken(flipped, 0.5), flips, labels, graph_parts.with_crop_shape(images, CROP)


@pipeline_def(batch_size=4, num_threads=2, device_id=None)
def paired_pipe(arrays_root, images_root):
    arrays, labels = graph_parts.arrays_with_labels(arrays_root, images_root)
    return arrays, labels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("images")
    parser.add_argument("arrays")
    args = parser.parse_args()
    for shard_id in range(2):
        pipe = train_pipe(args.images, shard_id)
        pipe.build()
        for step in range(4):  # more steps than the shard has batches: the reader wraps
            images, flips, labels, shapes = pipe.run()
            arrays = images.as_array()
            print(shard_id, step, arrays.shape, int(arrays.sum()), len(flips), flips.as_array().ravel().tolist(),
                  labels.as_array().ravel().tolist(), shapes.as_array().dtype, shapes.as_array().tolist())

    pipe = paired_pipe(args.arrays, args.images)
    pipe.build()
    for step in range(5):
        arrays, labels = pipe.run()
        print("paired", step, arrays.as_array().sum(axis=(1, 2)).round(3).tolist(), labels.as_array().ravel().tolist())


if __name__ == "__main__":
    main()
