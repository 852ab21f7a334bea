"""One epoch of labelled images read by a per-sample loader running in worker processes."""
import os
import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types


class LabelledFiles:
    """Class folders under a root; the sample at index k is the k-th file in name order."""

    def __init__(self, root):
        classes = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
        self.items = [(os.path.join(root, c, f), label) for label, c in enumerate(classes)
                      for f in sorted(os.listdir(os.path.join(root, c)))]

    def __call__(self, sample_info):
        if sample_info.idx_in_epoch >= len(self.items):
            raise StopIteration
        path, label = self.items[sample_info.idx_in_epoch]
        with open(path, "rb") as f:
            encoded = np.frombuffer(f.read(), dtype=np.uint8)
        return encoded, np.array([label], dtype=np.int32)


def make_pipeline(root, batch_size, workers):
    loader = LabelledFiles(root)

    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=None, py_num_workers=workers,
                  py_start_method="fork")
    def labelled_images():
        encoded, labels = fn.external_source(loader, num_outputs=2, batch=False, parallel=True)
        images = fn.decoders.image(encoded, device="cpu", output_type=types.RGB)
        images = fn.resize(images, resize_x=16, resize_y=12)
        return images, labels

    return labelled_images()


def main(root):
    pipe = make_pipeline(root, batch_size=3, workers=2)
    pipe.build()
    step = 0
    while True:
        try:
            images, labels = pipe.run()
        except StopIteration:
            break
        pixels = images.as_array()
        print(f"step {step}: images {pixels.shape} {pixels.dtype} sum {int(pixels.sum())}, "
              f"labels {labels.as_array().ravel().tolist()}")
        step += 1
    print(f"{step} steps")


if __name__ == "__main__":
    main(sys.argv[1])
