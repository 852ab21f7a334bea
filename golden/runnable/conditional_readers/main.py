"""Readers and sources chosen by plain Python conditions of the pipeline body, as segmentation and
train/validation data modules write them: an optional second reader (masks only when they exist),
and a training input fed from Python memory or read from disk by a configuration flag."""
import argparse
from types import SimpleNamespace

import numpy as np
from nvidia.dali import Pipeline, fn, pipeline_def, types


@pipeline_def(batch_size=3, num_threads=2, device_id=None, seed=11)
def segmentation(images_root, arrays_root, with_masks):
    jpegs, labels = fn.readers.file(file_root=images_root)
    if with_masks:
        # the masks live beside the images, one array each
        masks = fn.readers.numpy(file_root=arrays_root, name="Masks")
    else:
        masks = fn.cast(labels, dtype=types.FLOAT) * 0.0
    images = fn.decoders.image(jpegs)
    return fn.reductions.mean(images), masks, labels


def counting_batches(count):
    """A Python data source: a batch of `count` small arrays, one more each step."""
    step = 0
    while True:
        yield [np.full((2,), step * 10 + i, dtype=np.float32) for i in range(count)]
        step += 1


def make_train_pipe(cfg, arrays_root):
    @pipeline_def(batch_size=cfg.BATCH, num_threads=2, device_id=None)
    def train():
        if cfg.FROM_MEMORY:
            data = fn.external_source(source=counting_batches(cfg.BATCH), dtype=types.FLOAT)
            scale = 1.0
        elif cfg.SHUFFLE:
            data = fn.readers.numpy(file_root=arrays_root, random_shuffle=True, seed=cfg.SEED)
            scale = 0.5
        else:
            data = fn.readers.numpy(file_root=arrays_root)
            scale = 0.25
        return data * scale,

    return train()


class LabelLoader:
    """A data module that builds its pipeline in `with pipe:`, shuffling only for training."""

    def __init__(self, root, training):
        self.training = training
        self.pipe = Pipeline(batch_size=4, num_threads=2, device_id=None)
        with self.pipe:
            if self.training:
                jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=21)
            else:
                jpegs, labels = fn.readers.file(file_root=root)
            self.pipe.set_outputs(fn.reductions.mean(fn.decoders.image(jpegs)), labels)
        self.pipe.build()

    def labels(self):
        means, labels = self.pipe.run()
        return labels.as_array().ravel().tolist()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("images")
    parser.add_argument("arrays")
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args()
    for with_masks in (True, False):
        pipe = segmentation(args.images, args.arrays, with_masks)
        pipe.build()
        if with_masks:
            print("mask files", pipe.epoch_size("Masks"))
        for step in range(args.steps):
            means, masks, labels = pipe.run()
            print("masks" if with_masks else "plain", step, [round(float(m), 3) for m in means.as_array().ravel()],
                  [round(float(np.sum(masks.at(i))), 3) for i in range(len(masks))],
                  labels.as_array().ravel().tolist())
    for from_memory, shuffle in ((True, False), (False, True), (False, False)):
        cfg = SimpleNamespace(BATCH=2, FROM_MEMORY=from_memory, SHUFFLE=shuffle, SEED=5)
        pipe = make_train_pipe(cfg, args.arrays)
        pipe.build()
        for step in range(args.steps):
            (data,) = pipe.run()
            print("train", from_memory, shuffle, step, data.as_array().sum(axis=tuple(range(1, data.as_array().ndim))).round(3).tolist())

    for training in (True, False):
        loader = LabelLoader(args.images, training)
        print("loader", training, [loader.labels() for _ in range(args.steps)])


if __name__ == "__main__":
    main()
