"""How far DALIGenericIterator(size=...) runs a pipeline ahead decides where the next epoch starts when the
pipeline's source ends its epochs: the plugin has run it prefetch_queue_depth steps past the batch it gave (1 with
exec_pipelined=False; the larger queue with separate cpu/gpu queues), so a source longer than size is met at its end
sooner or later. A Pipeline subclass fed by iter_setup() with each of these settings, and @pipeline_def pipelines
over an external_source iterable that ends its epochs, each read for 4 epochs with reset()."""

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
from nvidia.dali import pipeline_def
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator

BATCH = 4
SOURCE_DEPTH = 1


class Counting:
    """Batches of consecutive numbers; StopIteration after `count` samples, iter() starts again."""

    def __init__(self, count):
        self.count = count

    def __iter__(self):
        self.i = 0
        return self

    def __next__(self):
        if self.i >= self.count:
            raise StopIteration
        values = [np.array([self.i + k], dtype=np.int32) for k in range(BATCH)]
        self.i += BATCH
        return values


def next_batch(pipe):
    """The pipeline's next batch; at the source's end, the source starts again and the epoch ends."""
    try:
        return next(pipe.iterator)
    except StopIteration:
        pipe.iterator = iter(pipe.source)
        raise


class ShallowPipe(Pipeline):
    def __init__(self, source):
        super().__init__(BATCH, 2, None, prefetch_queue_depth=1)
        self.input = ops.ExternalSource()
        self.source = source
        self.iterator = iter(self.source)

    def define_graph(self):
        self.values = self.input()
        return self.values + 100

    def iter_setup(self):
        self.feed_input(self.values, next_batch(self))


class DeepPipe(Pipeline):
    def __init__(self, source):
        super().__init__(BATCH, 2, None, prefetch_queue_depth=3)
        self.input = ops.ExternalSource()
        self.source = source
        self.iterator = iter(self.source)

    def define_graph(self):
        self.values = self.input()
        return self.values + 100

    def iter_setup(self):
        self.feed_input(self.values, next_batch(self))


class UnpipelinedPipe(Pipeline):
    def __init__(self, source):
        super().__init__(BATCH, 2, None, exec_pipelined=False)
        self.input = ops.ExternalSource()
        self.source = source
        self.iterator = iter(self.source)

    def define_graph(self):
        self.values = self.input()
        return self.values + 100

    def iter_setup(self):
        self.feed_input(self.values, next_batch(self))


class SeparatedPipe(Pipeline):
    def __init__(self, source):
        super().__init__(BATCH, 2, None, prefetch_queue_depth={"cpu_size": 1, "gpu_size": 3}, exec_dynamic=False)
        self.input = ops.ExternalSource()
        self.source = source
        self.iterator = iter(self.source)

    def define_graph(self):
        self.values = self.input()
        return self.values + 100

    def iter_setup(self):
        self.feed_input(self.values, next_batch(self))


class ChosenPipe(Pipeline):
    def __init__(self, source, pipelined):
        super().__init__(BATCH, 2, None, exec_pipelined=pipelined)
        self.input = ops.ExternalSource()
        self.source = source
        self.iterator = iter(self.source)

    def define_graph(self):
        self.values = self.input()
        return self.values + 100

    def iter_setup(self):
        self.feed_input(self.values, next_batch(self))


@pipeline_def(batch_size=BATCH, num_threads=2, device_id=None, prefetch_queue_depth=SOURCE_DEPTH)
def shallow_source_pipe(source):
    values = fn.external_source(source=source, cycle="raise")
    return values * 3


@pipeline_def(batch_size=BATCH, num_threads=2, device_id=None, prefetch_queue_depth=3)
def deep_source_pipe(source):
    values = fn.external_source(source=source, cycle="raise")
    return values * 3


def epochs(name, pipe, size, count=4):
    loader = DALIGenericIterator(pipe, ["values"], size=size)
    for epoch in range(count):
        batches = [batch[0]["values"].ravel().tolist() for batch in loader]
        print(name, "epoch", epoch, batches)
        loader.reset()


if __name__ == "__main__":
    for samples in (12, 16, 20):
        epochs(f"depth 1, {samples}/8", ShallowPipe(Counting(samples)), 8)
        epochs(f"depth 3, {samples}/8", DeepPipe(Counting(samples)), 8)
        epochs(f"unpipelined, {samples}/8", UnpipelinedPipe(Counting(samples)), 8)
        epochs(f"separated 1/3, {samples}/8", SeparatedPipe(Counting(samples)), 8)
        epochs(f"chosen unpipelined, {samples}/8", ChosenPipe(Counting(samples), False), 8)
        epochs(f"chosen pipelined, {samples}/8", ChosenPipe(Counting(samples), True), 8)
        epochs(f"source depth 1, {samples}/8", shallow_source_pipe(Counting(samples)), 8)
        epochs(f"source depth 3, {samples}/8", deep_source_pipe(Counting(samples)), 8)
