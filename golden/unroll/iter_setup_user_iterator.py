"""iter_setup() feeding from a user iterator class held in self.iterator: iter() of the class is the object itself
(its __iter__ returns self), so self.iterator.next() is the class's own next = __next__, not a migrated pipeline's.
The batches are lists built with append(). One pipeline takes the source as an argument and starts it again on
StopIteration; the other makes its source inline in __init__. Both go through DALIGenericIterator with size=."""
import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator


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


class SourcePipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, frames):
        super(SourcePipe, self).__init__(batch_size, num_threads, device_id, seed=1)
        self.input = ops.ExternalSource()
        self.input_ids = ops.ExternalSource()
        self.cast = ops.Cast(dtype=types.FLOAT)
        self.frames = frames
        self.iterator = iter(self.frames)

    def define_graph(self):
        self.raw = self.input()
        self.ids = self.input_ids()
        return self.cast(self.raw), self.ids

    def iter_setup(self):
        try:
            frames, ids = self.iterator.next()
            self.feed_input(self.raw, frames)
            self.feed_input(self.ids, ids)
        except StopIteration:
            self.iterator = iter(self.frames)
            raise StopIteration


class InlinePipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super().__init__(batch_size, num_threads, device_id)
        self.iterator = iter(Frames(6, batch_size))
        self.input = ops.ExternalSource()
        self.input_ids = ops.ExternalSource()

    def iter_setup(self):
        (frames, ids) = self.iterator.next()
        self.feed_input(self.raw, frames)
        self.feed_input(self.ids, ids)

    def define_graph(self):
        self.raw = self.input()
        self.ids = self.input_ids()
        return self.raw, self.ids


def loader(batch_size):
    frames = Frames(8, batch_size)
    pipe = SourcePipe(batch_size, 2, 0, frames)
    return DALIGenericIterator(pipe, output_map=["frames", "ids"], size=len(frames), last_batch_padded=True,
                               fill_last_batch=False)


if __name__ == "__main__":
    for epoch in range(2):
        for batch in loader(4):
            print(batch[0]["ids"].ravel().tolist())
    inline = DALIGenericIterator(InlinePipe(3, 2, 0), ["frames", "ids"], size=6)
    for batch in inline:
        print(batch[0]["frames"].sum())
    inline.reset()
