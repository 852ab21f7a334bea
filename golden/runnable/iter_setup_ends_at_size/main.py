"""A Pipeline subclass fed by iter_setup() from a source that ends its epoch (StopIteration; iter_setup() starts it
again and raises StopIteration), read through DALIGenericIterator with size= equal to the source's length and
reset() after each epoch. The plugin schedules the pipeline's next run as it returns a batch, so by the end of the
epoch iter_setup() has already met the source's end, and reset() starts the next epoch: every epoch gives all the
batches. A source longer than size gives the batches run ahead first in the next epoch, then its next epoch."""

import numpy as np
import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator


class Batches:
    def __init__(self, count, batch_size):
        self.count = count
        self.batch_size = batch_size

    def __iter__(self):
        self.i = 0
        return self

    def __len__(self):
        return self.count

    def __next__(self):
        if self.i >= self.count:
            raise StopIteration
        values = [np.array([self.i + k], dtype=np.int32) for k in range(self.batch_size)]
        self.i += self.batch_size
        return values


class EndingPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, source):
        super().__init__(batch_size, num_threads, device_id)
        self.input = ops.ExternalSource()
        self.source = source
        self.iterator = iter(self.source)

    def define_graph(self):
        self.values = self.input()
        return self.values * 2

    def iter_setup(self):
        try:
            self.feed_input(self.values, next(self.iterator))
        except StopIteration:
            self.iterator = iter(self.source)
            raise StopIteration


def epochs(name, source, size, count=3):
    loader = DALIGenericIterator(EndingPipe(4, 2, None, source), ["values"], size=size)
    for epoch in range(count):
        for k, batch in enumerate(loader):
            print(name, "epoch", epoch, "batch", k, batch[0]["values"].ravel().tolist())
        loader.reset()


if __name__ == "__main__":
    epochs("ends at size", Batches(8, 4), 8)
    # A source longer than size: the batches the plugin ran ahead come first in the next epoch, then the
    # source's next epoch (the plugin met its end while running ahead).
    epochs("longer than size", Batches(12, 4), 8, count=4)
