"""A Pipeline subclass fed by iter_setup() from a user iterator class held in self.iterator: the class has
__iter__ (returning self), __next__ and the Python 2 spelling next = __next__, and its batches are lists built
with append(). iter_setup() calls self.iterator.next(); one source ends its epoch with StopIteration (iter_setup()
starts it again and raises StopIteration), the other wraps around and never ends. Read by hand (run(), reset())
and through DALIGenericIterator: the wrapping one with size= and reset(), the ending one with auto_reset."""

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


def make_arrays(count):
    return [np.arange(6, dtype=np.uint8).reshape(2, 3) + k for k in range(count)]


class EndingBatches:
    """(samples, labels) lists of up to batch_size, in order; StopIteration after the last one."""

    def __init__(self, arrays, batch_size):
        self.arrays = arrays
        self.batch_size = batch_size

    def __iter__(self):
        self.i = 0
        return self

    def __len__(self):
        return len(self.arrays)

    def __next__(self):
        if self.i >= len(self.arrays):
            raise StopIteration
        samples = []
        labels = []
        for k in range(self.i, min(self.i + self.batch_size, len(self.arrays))):
            samples.append(self.arrays[k])
            labels.append(np.array([k % 3], dtype=np.int32))
        self.i += self.batch_size
        return (samples, labels)

    next = __next__


class WrappingBatches:
    """Full batches that wrap around the arrays: it never ends."""

    def __init__(self, count, batch_size):
        self.arrays = make_arrays(count)
        self.batch_size = batch_size
        self.size = count

    def __iter__(self):
        self.i = 0
        return self

    def __next__(self):
        samples = []
        labels = []
        for _ in range(self.batch_size):
            samples.append(self.arrays[self.i])
            labels.append(np.array([self.i], dtype=np.int32))
            self.i = (self.i + 1) % len(self.arrays)
        return (samples, labels)

    next = __next__


class EndingPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, source):
        super().__init__(batch_size, num_threads, device_id, seed=5)
        self.input = ops.ExternalSource()
        self.input_label = ops.ExternalSource()
        self.cast = ops.Cast(dtype=types.FLOAT)
        self.source = source
        self.iterator = iter(self.source)

    def define_graph(self):
        self.samples = self.input()
        self.labels = self.input_label()
        return self.cast(self.samples) * 0.5, self.labels

    def iter_setup(self):
        try:
            samples, labels = self.iterator.next()
            self.feed_input(self.samples, samples)
            self.feed_input(self.labels, labels)
        except StopIteration:
            self.iterator = iter(self.source)
            raise StopIteration


class WrappingPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, count):
        super().__init__(batch_size, num_threads, device_id, seed=7)
        self.iterator = iter(WrappingBatches(count, batch_size))
        self.input = ops.ExternalSource()
        self.input_label = ops.ExternalSource()

    def iter_setup(self):
        (samples, labels) = self.iterator.next()
        self.feed_input(self.samples, samples)
        self.feed_input(self.labels, labels)

    def define_graph(self):
        self.samples = self.input()
        self.labels = self.input_label()
        return self.samples + 1, self.labels


def by_hand():
    pipe = EndingPipe(4, 2, None, EndingBatches(make_arrays(10), 4))
    pipe.build()
    for step in range(8):
        try:
            samples, labels = pipe.run()
        except StopIteration:
            print("ending step", step, "StopIteration")
            pipe.reset()
            continue
        print("ending step", step, labels.as_array().ravel().tolist(),
              [float(samples.at(i).sum()) for i in range(len(samples))])
    pipe = WrappingPipe(3, 2, None, 5)
    pipe.build()
    for step in range(4):
        samples, labels = pipe.run()
        print("wrapping step", step, labels.as_array().ravel().tolist(), int(samples.as_array().sum()))


def with_iterator():
    count = 5
    loader = DALIGenericIterator(WrappingPipe(3, 2, None, count), ["samples", "labels"], size=count,
                                 last_batch_policy=LastBatchPolicy.PARTIAL)
    for epoch in range(3):
        for k, batch in enumerate(loader):
            print("wrapping epoch", epoch, "batch", k, batch[0]["labels"].ravel().tolist(),
                  int(batch[0]["samples"].sum()))
        loader.reset()
    source = EndingBatches(make_arrays(10), 4)
    loader = DALIGenericIterator(EndingPipe(4, 2, None, source), ["samples", "labels"], auto_reset=True,
                                 last_batch_policy=LastBatchPolicy.PARTIAL)
    for epoch in range(2):
        for k, batch in enumerate(loader):
            print("ending epoch", epoch, "batch", k, batch[0]["labels"].ravel().tolist(),
                  float(batch[0]["samples"].sum()))


if __name__ == "__main__":
    by_hand()
    with_iterator()
