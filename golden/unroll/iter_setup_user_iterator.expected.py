"""iter_setup() feeding from a user iterator class held in self.iterator: iter() of the class is the object itself
(its __iter__ returns self), so self.iterator.next() is the class's own next = __next__, not a migrated pipeline's.
The batches are lists built with append(). One pipeline takes the source as an argument and starts it again on
StopIteration; the other makes its source inline in __init__. Both go through DALIGenericIterator with size=."""
import numpy as np
import contextlib
import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import EpochIterator, ReaderStream  # written by dali-migrate (migrate --write recreates it)


class Frames:
    def __init__(self, count, batch_size):
        self.count = count
        self.batch_size = batch_size

    def __iter__(self):
        self.i = 0
        return self

    def __len__(self):
        return self.count

    def __next__(self):
        frames = []
        ids = []
        for _ in range(self.batch_size):
            frames.append(np.full((2, 2), self.i, dtype=np.uint8))
            ids.append(np.array([self.i], dtype=np.int32))
            self.i = (self.i + 1) % self.count
        return (frames, ids)

    next = __next__


class SourcePipe(ReaderStream):
    def __init__(self, batch_size, num_threads, device_id, frames):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = 1
        self.frames = frames
        self.iterator = iter(self.frames)

    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            while True:
                try:
                    self.iter_setup()
                except StopIteration:
                    return  # iter_setup() ended the epoch: pipe.run() raised StopIteration until pipe.reset()
                yield ndd.cast(self.raw, dtype=types.FLOAT), self.ids

    def iter_setup(self):
        try:
            frames, ids = self.iterator.next()
            self.raw = ndd.as_batch(frames)
            self.ids = ndd.as_batch(ids)
        except StopIteration:
            self.iterator = iter(self.frames)
            raise StopIteration

    def _restart(self, epoch):
        """pipe.reset() after iter_setup() ended an epoch: the next epoch's steps."""
        return self.steps()


class InlinePipe(ReaderStream):
    def __init__(self, batch_size, num_threads, device_id):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = None
        self.iterator = iter(Frames(6, batch_size))

    def iter_setup(self):
        (frames, ids) = self.iterator.next()
        self.raw = ndd.as_batch(frames)
        self.ids = ndd.as_batch(ids)

    def _restart(self, epoch):
        """pipe.reset() after iter_setup() ended an epoch: the next epoch's steps."""
        return self.steps()

    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            while True:
                try:
                    self.iter_setup()
                except StopIteration:
                    return  # iter_setup() ended the epoch: pipe.run() raised StopIteration until pipe.reset()
                yield self.raw, self.ids


def loader(batch_size):
    frames = Frames(8, batch_size)
    pipe = SourcePipe(batch_size, 2, 0, frames)
    return EpochIterator(pipe, ["frames", "ids"], size=len(frames), last_batch_padded=True, last_batch_policy="PARTIAL")


if __name__ == "__main__":
    for epoch in range(2):
        for batch in loader(4):
            print(batch[0]["ids"].ravel().tolist())
    inline = EpochIterator(InlinePipe(3, 2, 0), ["frames", "ids"], size=6)
    for batch in inline:
        print(batch[0]["frames"].sum())
    inline.reset()
