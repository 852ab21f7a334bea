"""Epochs that an external source ends (issue 15, capability 4): a source class whose __next__ raises
StopIteration after 7 samples (batches of 3, 3 and 1) and whose __iter__ starts its next epoch, under the
PyTorch iterator without size (it reads until the pipeline raises StopIteration); reset(), a new loop,
auto_reset or next() until StopIteration start the next epoch; cycle="raise" calls iter() on the source
again at its end, cycle=None keeps the one iterator (an exhausted one gives empty epochs)."""

import numpy as np
import inspect
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import EpochIterator, ReaderStream  # written by dali-migrate (migrate --write recreates it)


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


def counted(source, *, batch_size=3):
    source_2 = source
    source_2 = source_2() if inspect.isgeneratorfunction(source_2) else source_2
    source_2_next = iter(source_2).__next__ if hasattr(source_2, '__iter__') else None
    source_2_takes_info = source_2_next is None and len(inspect.signature(source_2).parameters) > 0

    def steps(epoch_idx=0):
        source_2_step = 0  # the iteration in the epoch, as pipeline mode counted it
        while True:
            try:
                data = source_2_next() if source_2_next else source_2(source_2_step) if source_2_takes_info else source_2()
            except StopIteration:
                return  # the epoch ends: pipe.run() raised StopIteration until pipe.reset()
            source_2_step += 1
            data = ndd.as_batch(data)
            yield (data * 2,)

    return ReaderStream(steps(), {}, batch_size, restart=steps)


def counted_again(source, *, batch_size=3):
    source_2 = source
    source_2_again = source_2 if inspect.isgeneratorfunction(source_2) else lambda: source_2
    source_2_next = iter(source_2_again()).__next__

    def steps(epoch_idx=0):
        nonlocal source_2_next
        while True:
            try:
                data = source_2_next()
            except StopIteration:
                source_2_next = iter(source_2_again()).__next__  # cycle="raise": read from the start in the next epoch
                return  # the epoch ends: pipe.run() raised StopIteration until pipe.reset()
            data = ndd.as_batch(data)
            yield (data * 2,)

    return ReaderStream(steps(), {}, batch_size, restart=steps)


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
    loader = EpochIterator(pipe, ["x"], size=-1, last_batch_padded=True, last_batch_policy="PARTIAL", auto_reset=mode == "auto")
    return _epochs(loader, mode, epochs), source.iters, loader.size, len(loader)


def drop_epochs(cycle, mode, epochs=3):
    source = Countdown()
    pipe = counted_again(source) if cycle == "raise" else counted(source)
    loader = EpochIterator([pipe], ["x"], size=-1, last_batch_policy="DROP", auto_reset=mode == "auto")
    return _epochs(loader, mode, epochs), source.iters, loader.size, len(loader)
