"""A pipeline built from another module's source helper (its reader asked for its epoch size by name) and a
pipeline that module's factory builds, each run a few steps."""
import argparse

import numpy as np
from nvidia.dali import pipeline_def

from graph_parts import counting_pipeline, labelled_images


@pipeline_def(batch_size=4, num_threads=2, device_id=None)
def images_pipe(root):
    images, labels = labelled_images(root, 8)
    return images, labels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("images")
    args = parser.parse_args()
    pipe = images_pipe(args.images)
    pipe.build()
    print("epoch size", pipe.epoch_size("Reader"))
    for step in range(4):
        images, labels = pipe.run()
        print("images", step, [tuple(image.shape()) for image in images], int(np.sum([np.array(i) for i in images])),
              [int(np.array(label)[0]) for label in labels])
    counting = counting_pipeline(3, (2, 2))
    counting.build()
    for step in range(3):
        (counts,) = counting.run()
        print("counts", step, [np.array(c).tolist() for c in counts])


if __name__ == "__main__":
    main()
