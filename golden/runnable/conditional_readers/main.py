"""Readers and sources chosen by plain Python conditions of the pipeline body, as segmentation and
train/validation data modules write them: an optional second reader (masks only when they exist),
and a training input fed from Python memory or read from disk by a configuration flag."""
import argparse
from types import SimpleNamespace

import numpy as np
from nvidia.dali import Pipeline, fn, ops, pipeline_def, types


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


class ListedOrAll(Pipeline):
    """A Pipeline subclass reading a file list when one is given, else the whole folder."""

    def __init__(self, batch_size, root, file_list=None):
        super().__init__(batch_size, 2, None, seed=12)
        if file_list is not None:
            self.input = ops.readers.File(file_root=root, file_list=file_list)
        else:
            self.input = ops.readers.File(file_root=root, random_shuffle=True, seed=4)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.GRAY)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return self.decode(jpegs), labels


class Arrays(Pipeline):
    def __init__(self, batch_size, root, shuffled):
        super().__init__(batch_size, 2, None)
        self.read = ops.readers.Numpy(file_root=root, random_shuffle=True, seed=3) if shuffled else \
            ops.readers.Numpy(file_root=root)

    def define_graph(self):
        arrays = self.read()
        return arrays * 2.0


class TrainOrEval(Pipeline):
    """A Pipeline subclass whose define_graph reads images for training and arrays for evaluation."""

    def __init__(self, batch_size, images_root, arrays_root, training):
        super().__init__(batch_size, 2, None)
        self.training = training
        self.images_root, self.arrays_root = images_root, arrays_root

    def define_graph(self):
        if self.training:
            jpegs, labels = fn.readers.file(file_root=self.images_root, random_shuffle=True, seed=8)
            data = fn.reductions.mean(fn.decoders.image(jpegs))
        else:
            data = fn.readers.numpy(file_root=self.arrays_root)
            labels = fn.reductions.sum(data)
        return data, labels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("images")
    parser.add_argument("arrays")
    parser.add_argument("filelist")
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

    for file_list in (args.filelist, None):
        pipe = ListedOrAll(4, args.images if file_list is None else args.images, file_list)
        pipe.build()
        print("listed" if file_list else "all", pipe.epoch_size("Reader"))
        for step in range(args.steps):
            images, labels = pipe.run()
            print(step, [round(float(np.mean(images.at(i))), 3) for i in range(len(images))],
                  labels.as_array().ravel().tolist())
    for shuffled in (True, False):
        pipe = Arrays(4, args.arrays, shuffled)
        pipe.build()
        print("arrays", shuffled, [pipe.run()[0].as_array().sum(axis=(1, 2)).tolist() for _ in range(args.steps)])

    for training in (True, False):
        pipe = TrainOrEval(3, args.images, args.arrays, training)
        pipe.build()
        for step in range(args.steps):
            data, labels = (out.as_array() for out in pipe.run())
            print("train" if training else "eval", step, data.round(3).ravel().tolist()[:6], labels.ravel().tolist())


if __name__ == "__main__":
    main()
