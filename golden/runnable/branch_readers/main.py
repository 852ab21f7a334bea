"""Readers a Pipeline subclass's define_graph calls in one branch of an `if` on a build-time value: training and
validation ops readers both made in __init__ (one name, "Reader", given at the call), an optional second reader,
and named fn readers in define_graph's branches. Pipeline mode built only the branch taken."""
import argparse

import numpy as np
from nvidia.dali import Pipeline, fn, ops, pipeline_def, types


class TrainVal(Pipeline):
    def __init__(self, batch_size, root, is_train):
        super().__init__(batch_size, 2, None, seed=5)
        self.is_train = is_train
        self.reader_train = ops.readers.File(file_root=root, random_shuffle=True, seed=7)
        self.reader_val = ops.readers.File(file_root=root, shard_id=1, num_shards=2)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.GRAY)

    def define_graph(self):
        if self.is_train:
            jpegs, labels = self.reader_train(name="Reader")
        else:
            jpegs, labels = self.reader_val(name="Reader")
        return fn.reductions.mean(self.decode(jpegs)), labels


class WithMasks(Pipeline):
    """A second reader only when masks are wanted (a constructor argument)."""

    def __init__(self, batch_size, images, arrays, with_masks):
        super().__init__(batch_size, 2, None)
        self.with_masks = with_masks
        self.images = ops.readers.File(file_root=images)
        self.masks = ops.readers.Numpy(file_root=arrays)

    def define_graph(self):
        jpegs, labels = self.images(name="Images")
        if self.with_masks:
            masks = self.masks(name="Masks")
            total = fn.reductions.sum(masks)
        else:
            total = fn.cast(labels, dtype=types.FLOAT) * 0.0
        return labels, total


class ImagesOrArrays(Pipeline):
    """Named fn readers in define_graph's branches."""

    def __init__(self, batch_size, images_root, arrays_root, training):
        super().__init__(batch_size, 2, None)
        self.training = training
        self.images_root, self.arrays_root = images_root, arrays_root

    def define_graph(self):
        if self.training:
            jpegs, labels = fn.readers.file(file_root=self.images_root, name="Reader", pad_last_batch=True)
            data = fn.reductions.max(fn.decoders.image(jpegs))
        else:
            data = fn.readers.numpy(file_root=self.arrays_root, name="Reader")
            labels = fn.cast(fn.reductions.sum(data), dtype=types.INT32)
        return data, labels


class EarlyReturn(Pipeline):
    """An early return in define_graph's training branch, each branch with its own ops reader."""

    def __init__(self, batch_size, root, training):
        super().__init__(batch_size, 2, None)
        self.training = training
        self.train_input = ops.readers.File(file_root=root, random_shuffle=True, seed=3)
        self.eval_input = ops.readers.File(file_root=root)

    def define_graph(self):
        if self.training:
            jpegs, labels = self.train_input(name="Reader")
            return fn.reductions.min(fn.decoders.image(jpegs)), labels
        jpegs, labels = self.eval_input(name="Reader")
        means = fn.reductions.mean(fn.decoders.image(jpegs))
        return means, labels + 10


@pipeline_def(batch_size=3, num_threads=2, device_id=None)
def returns_in_branches(images, arrays, use_arrays):
    """A @pipeline_def whose branches each create their reader and return."""
    if use_arrays:
        data = fn.readers.numpy(file_root=arrays, name="Reader")
        return fn.reductions.sum(data),
    else:
        jpegs, _ = fn.readers.file(file_root=images, name="Reader")
        return fn.reductions.mean(fn.decoders.image(jpegs)),


def rows(out):
    return [np.asarray(out.at(i)).round(3).ravel().tolist()[:3] for i in range(len(out))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("images")
    parser.add_argument("arrays")
    parser.add_argument("--steps", type=int, default=4)
    args = parser.parse_args()
    for is_train in (True, False):
        pipe = TrainVal(3, args.images, is_train)
        pipe.build()
        print("train" if is_train else "val", "epoch", pipe.epoch_size("Reader"), pipe.reader_meta("Reader"))
        for step in range(args.steps):
            means, labels = pipe.run()
            print(step, rows(means), rows(labels))
    for with_masks in (True, False):
        pipe = WithMasks(4, args.images, args.arrays, with_masks)
        pipe.build()
        print("masks" if with_masks else "no masks", pipe.epoch_size("Images"),
              pipe.epoch_size("Masks") if with_masks else "-")
        for step in range(args.steps):
            labels, total = pipe.run()
            print(step, rows(labels), rows(total))
    for training in (True, False):
        pipe = ImagesOrArrays(4, args.images, args.arrays, training)
        pipe.build()
        print("images" if training else "arrays", pipe.epoch_size("Reader"))
        for step in range(args.steps):
            data, labels = pipe.run()
            print(step, rows(data), rows(labels))
    for training in (True, False):
        pipe = EarlyReturn(4, args.images, training)
        pipe.build()
        print("early return", training, pipe.epoch_size("Reader"))
        for step in range(args.steps):
            data, labels = pipe.run()
            print(step, rows(data), rows(labels))
    for use_arrays in (True, False):
        pipe = returns_in_branches(args.images, args.arrays, use_arrays)
        pipe.build()
        print("returns", use_arrays, pipe.epoch_size("Reader"))
        for step in range(args.steps):
            (data,) = pipe.run()
            print(step, rows(data))


if __name__ == "__main__":
    main()
