"""A Pipeline subclass fed from Python by iter_setup(), in the shape DALI's docs teach for external data with
epochs: the data iterator is a class with __iter__/__next__ (and the Python 2 spelling next()); iter_setup() feeds
inside try: and, when the iterator ends, starts it again and raises StopIteration, which ends the epoch. Read by
hand (the next epoch starts after pipe.reset(); without it every run() raises StopIteration again) and through
the PyTorch iterator, which resets it itself."""

import os
import sys

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


class JpegBatches:
    """Batches of (encoded JPEG, label) from a folder, in file order; the last batch may be short."""

    def __init__(self, folder, batch_size):
        self.files = sorted(os.path.join(root, name) for root, _, names in os.walk(folder)
                            for name in names if name.endswith(".jpg"))
        self.batch_size = batch_size

    def __iter__(self):
        self.i = 0
        return self

    def __next__(self):
        if self.i >= len(self.files):
            raise StopIteration
        chunk = self.files[self.i:self.i + self.batch_size]
        self.i += self.batch_size
        jpegs = [np.fromfile(path, dtype=np.uint8) for path in chunk]
        labels = [np.array([k % 3], dtype=np.int32) for k in range(self.i - self.batch_size, self.i)][:len(chunk)]
        return jpegs, labels

    next = __next__


class FeedPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data):
        super().__init__(batch_size, num_threads, device_id, seed=3)
        self.input = ops.ExternalSource()
        self.input_label = ops.ExternalSource()
        self.decode = ops.decoders.Image(device="mixed", output_type=types.RGB)
        self.resize = ops.Resize(device="gpu", resize_x=12, resize_y=10)
        self.data = data
        self.iterator = iter(self.data)

    def iter_setup(self):
        try:
            jpegs, labels = self.iterator.next()
            self.feed_input(self.jpegs, jpegs)
            self.feed_input(self.labels, labels)
        except StopIteration:
            self.iterator = iter(self.data)
            raise StopIteration

    def define_graph(self):
        self.jpegs = self.input()
        self.labels = self.input_label()
        images = self.resize(self.decode(self.jpegs))
        return images, self.labels


def by_hand(folder):
    pipe = FeedPipe(4, 2, None, JpegBatches(folder, 4))
    pipe.build()
    for step in range(9):
        try:
            images, labels = pipe.run()
        except StopIteration:
            print("step", step, "StopIteration")
            if step < 6:
                pipe.reset()  # the next epoch; after step 6 no reset: run() keeps raising StopIteration
            continue
        images = images.as_cpu()
        print("step", step, labels.as_array().ravel().tolist(), [int(images.at(i).sum()) for i in range(len(images))])


def with_iterator(folder):
    pipe = FeedPipe(4, 2, None, JpegBatches(folder, 4))
    pipe.build()
    loader = DALIGenericIterator(pipe, ["images", "labels"], auto_reset=True,
                                 last_batch_policy=LastBatchPolicy.PARTIAL)
    for epoch in range(2):
        for k, batch in enumerate(loader):
            print("epoch", epoch, "batch", k, batch[0]["labels"].ravel().tolist(), int(batch[0]["images"].sum()))


if __name__ == "__main__":
    by_hand(sys.argv[1])
    with_iterator(sys.argv[1])
