"""Epochs that an external source ends (issue 15, capability 4): a source class whose __next__ raises
StopIteration after 7 samples (batches of 3, 3 and 1) and whose __iter__ starts its next epoch, under the
PyTorch iterator without size (it reads until the pipeline raises StopIteration); reset(), a new loop,
auto_reset or next() until StopIteration start the next epoch; cycle="raise" calls iter() on the source
again at its end, cycle=None keeps the one iterator (an exhausted one gives empty epochs)."""

import numpy as np
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


class Countdown:
    def __init__(self, total=7, batch=3):
        self.total = total
        self.batch = batch
        self.epoch = 0
        self.iters = 0

    def __iter__(self):
        self.iters += 1
        self.epoch += 1
        self.start = 0
        return self

    def __next__(self):
        if self.start >= self.total:
            raise StopIteration
        count = min(self.batch, self.total - self.start)
        batch = [np.array([self.epoch * 100 + self.start + k], dtype=np.int32) for k in range(count)]
        self.start += count
        return batch


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def counted(source):
    data = fn.external_source(source=source)
    return data * 2


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def counted_again(source):
    data = fn.external_source(source=source, cycle="raise")
    return data * 2


def _epochs(loader, mode, epochs):
    seen = []
    for _ in range(epochs):
        batches = []
        if mode == "next":
            while True:
                try:
                    batch = next(loader)
                except StopIteration:
                    break
                batches.append(batch[0]["x"].view(-1).tolist())
        else:
            for batch in loader:
                batches.append(batch[0]["x"].view(-1).tolist())
        if mode in ("reset", "next"):
            loader.reset()
        seen.append(batches)
    return seen


def partial_epochs(cycle, mode, epochs=3):
    source = Countdown()
    pipe = counted_again(source) if cycle == "raise" else counted(source)
    pipe.build()
    loader = DALIGenericIterator(pipe, ["x"], last_batch_policy=LastBatchPolicy.PARTIAL, last_batch_padded=True,
                                 auto_reset=mode == "auto")
    return _epochs(loader, mode, epochs), source.iters, loader.size, len(loader)


def drop_epochs(cycle, mode, epochs=3):
    source = Countdown()
    pipe = counted_again(source) if cycle == "raise" else counted(source)
    pipe.build()
    loader = DALIGenericIterator([pipe], ["x"], size=-1, last_batch_policy=LastBatchPolicy.DROP,
                                 auto_reset=mode == "auto")
    return _epochs(loader, mode, epochs), source.iters, loader.size, len(loader)
