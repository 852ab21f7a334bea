"""A DALIGenericIterator subclass that hands out the batch the plugin prepared at construction itself, as some
training scripts copy it from the plugin's __next__ (``if self._first_batch is not None: ...``), then adapts the
steps super().__next__() gives to (images, labels) pairs; its __len__ reads self.size and self.batch_size, and
its __init__ sets attributes before super().__init__. The pipeline is a Pipeline subclass fed in iter_setup()
from a Python iterator over numpy images."""

import argparse

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator


class ArraySource:
    """Batches of (image, label) made from numbers: image k is a 6x6x3 array of k, its label k % 4."""

    def __init__(self, batch_size, count):
        self.batch_size, self.count, self.size = batch_size, count, count

    def __iter__(self):
        self.i = 0
        return self

    def __next__(self):
        images, labels = [], []
        for _ in range(self.batch_size):
            k = self.i % self.count
            images.append(np.full((6, 6, 3), k, dtype=np.uint8))
            labels.append(np.array([k % 4], dtype=np.int64))
            self.i += 1
        return images, labels


class FeedPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, count):
        super().__init__(batch_size, num_threads, device_id, seed=12)
        self.iterator = iter(ArraySource(batch_size, count))
        self.input = ops.ExternalSource()
        self.input_label = ops.ExternalSource()
        self.cmnp = ops.CropMirrorNormalize(device="gpu", dtype=types.FLOAT, output_layout=types.NCHW,
                                            crop=(4, 4), mean=[1.0, 1.0, 1.0], std=[2.0, 2.0, 2.0])

    def iter_setup(self):
        (images, labels) = next(self.iterator)
        self.feed_input(self.jpegs, images, layout="HWC")
        self.feed_input(self.labels, labels)

    def define_graph(self):
        self.jpegs = self.input()
        self.labels = self.input_label()
        return [self.cmnp(self.jpegs.gpu()), self.labels]


class Loader(DALIGenericIterator):
    def __init__(self, pipeline, size, output_map=["data", "label"], auto_reset=True, squeeze=True):
        self.size_given = size
        self.batch_size = pipeline.max_batch_size
        self.squeeze = squeeze
        self.output_map = output_map
        super().__init__(pipelines=pipeline, size=self.size_given, auto_reset=auto_reset, output_map=output_map)

    def __next__(self):
        if self._first_batch is not None:
            batch = self._first_batch
            self._first_batch = None
            return batch
        data = super().__next__()[0]
        if self.squeeze:
            return [data[self.output_map[0]], data[self.output_map[1]].squeeze().long()]
        return [data[self.output_map[0]], data[self.output_map[1]]]

    def __len__(self):
        if self.size % self.batch_size == 0:
            return self.size // self.batch_size
        return self.size // self.batch_size + 1


def show(step):
    if isinstance(step, list) and isinstance(step[0], dict):  # the prepared first batch, as the plugin gave it
        return f"dict data={step[0]['data'].flatten()[::48].tolist()} label={step[0]['label'].flatten().tolist()}"
    images, labels = step
    return f"pair images={images.flatten()[::48].tolist()} labels={labels.tolist()}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()

    pipe = FeedPipe(batch_size=4, num_threads=2, device_id=0, count=10)
    pipe.build()
    loader = Loader(pipe, size=10)
    print(f"{len(loader)} steps per epoch, batch {loader.batch_size}")
    for epoch in range(args.epochs):
        print(f"epoch {epoch}: " + "; ".join(show(step) for step in loader))


if __name__ == "__main__":
    main()
