"""iter_setup()/feed_input() subclasses: one that migrates (each step calls iter_setup, whose feed becomes the
batch the ops read) and one that stays marked (it feeds by the source's name)."""
import numpy as np
import contextlib
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import ReaderStream  # written by dali-migrate (migrate --write recreates it)


def load_batch(size):
    return [np.full((4, 4, 3), i, dtype=np.uint8) for i in range(size)]


class FedPipe(ReaderStream):
    def __init__(self, batch_size, num_threads, device_id):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = None
        self._prefetch_depth = 3

    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            if self.seed is not None:
                ndd.random.set_seed(self.seed)
            while True:
                try:
                    self.iter_setup()
                except StopIteration:
                    return  # iter_setup() ended the epoch: pipe.run() raised StopIteration until pipe.reset()
                yield (ndd.flip(self.raw, vertical=ndd.random.coin_flip(probability=0.5, batch_size=self.batch_size), horizontal=1),)

    def iter_setup(self):
        self.raw = ndd.as_batch(load_batch(self.batch_size), dtype=types.UINT8, layout="HWC")

    def _restart(self, epoch):
        """pipe.reset() after iter_setup() ended an epoch: the next epoch's steps."""
        return self.steps()


# dali-migrate: DM212 ByNamePipe stays in pipeline mode: self.feed_input("raw", load_batch(self.batch_size)): only `self.feed_input(self.x, data)` statements of iter_setup itself, for a self.x that define_graph got from an external source, are migrated
# dali-migrate: DM230 ByNamePipe stays in pipeline mode with everything that uses it: line 38: feed_input has no dynamic-mode counterpart: pass the data straight to the ndd ops
class ByNamePipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super(ByNamePipe, self).__init__(batch_size, num_threads, device_id)
        self.input = ops.ExternalSource(name="raw")

    def define_graph(self):
        self.raw = self.input()
        return self.raw

    def iter_setup(self):
        # dali-migrate: DM214 feed_input has no dynamic-mode counterpart: pass the data straight to the ndd ops
        self.feed_input("raw", load_batch(self.batch_size))


def bench(pipe_type, steps):
    pipe = pipe_type(4, 2, 0)
    for _ in range(steps):
        next(pipe)


for pipe_type in [FedPipe]:
    bench(pipe_type, 3)
named = ByNamePipe(2, 2, 0)
named.build()
out = named.run()
