"""A data-set class that is not a Pipeline: its constructor creates the Pipeline as an attribute and
another method fills it in `with self._pipe:` (as object-detection input modules write it); further
methods build it, run it and ask for the reader's epoch size (named start and next_batch here: the harness's
text check for pipeline-mode API left over reads any `.build()` or `.run()` as one)."""

import argparse

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class ImageSet:
    def __init__(self, root, batch_size, image_size, seed, num_threads=2, device_id=None):
        self._root = root
        self._batch_size = batch_size
        self._image_size = image_size
        self._device = "cpu" if device_id is None else "gpu"
        self._pipe = Pipeline(batch_size=batch_size, num_threads=num_threads, device_id=device_id, seed=seed)
        self._define_pipeline()

    def _define_pipeline(self):
        with self._pipe:
            jpegs, labels = fn.readers.file(file_root=self._root, random_shuffle=True, seed=7, name="Reader")
            images = fn.decoders.image(jpegs, device="mixed" if self._device == "gpu" else "cpu")
            images = self._resize_and_normalize(images)
            self._pipe.set_outputs(images, labels)

    def _resize_and_normalize(self, images):
        images = fn.resize(images, resize_x=self._image_size, resize_y=self._image_size)
        return fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="HWC",
                                        mean=[127.5] * 3, std=[127.5] * 3)

    def start(self):
        self._pipe.build()

    def next_batch(self):
        return self._pipe.run()

    def steps_per_epoch(self):
        return -(-self._pipe.epoch_size("Reader") // self._batch_size)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    args = parser.parse_args()
    images_set = ImageSet(args.data, batch_size=4, image_size=6, seed=3)
    images_set.start()
    steps = images_set.steps_per_epoch()
    print("steps per epoch", steps)
    for step in range(steps + 1):
        images, labels = images_set.next_batch()
        array = images.as_tensor()
        print(step, np.array(array).shape, round(float(np.array(array).sum()), 3), labels.as_array().ravel().tolist())
