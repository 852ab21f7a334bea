"""iter_setup()/feed_input() subclasses: one that migrates (each step calls iter_setup, whose feed becomes the
batch the ops read) and one that stays marked (it feeds by the source's name)."""
import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


def load_batch(size):
    return [np.full((4, 4, 3), i, dtype=np.uint8) for i in range(size)]


class FedPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super(FedPipe, self).__init__(batch_size, num_threads, device_id, prefetch_queue_depth=3)
        self.input = ops.ExternalSource(dtype=types.UINT8, layout="HWC", name="raw")
        self.flip = ops.Flip(horizontal=1)
        self.coin = ops.random.CoinFlip(probability=0.5)

    def define_graph(self):
        self.raw = self.input()
        return self.flip(self.raw, vertical=self.coin())

    def iter_setup(self):
        self.feed_input(self.raw, load_batch(self.batch_size), layout="HWC")


class ByNamePipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super(ByNamePipe, self).__init__(batch_size, num_threads, device_id)
        self.input = ops.ExternalSource(name="raw")

    def define_graph(self):
        self.raw = self.input()
        return self.raw

    def iter_setup(self):
        self.feed_input("raw", load_batch(self.batch_size))


def bench(pipe_type, steps):
    pipe = pipe_type(4, 2, 0)
    pipe.build()
    for _ in range(steps):
        pipe.run()


for pipe_type in [FedPipe]:
    bench(pipe_type, 3)
named = ByNamePipe(2, 2, 0)
named.build()
out = named.run()
