"""Constants built by a Pipeline class hierarchy: typed types.Constant in a subclass's __init__ after
super().__init__ and in a helper method become batches of self.batch_size (a bare scalar operand stays the value).
A per-sample external_source with num_outputs gives each output its own dtype."""

import numpy as np
import contextlib
import inspect
import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from nvidia.dali.types import SampleInfo
from dali_dynamic_compat import ReaderStream  # written by dali-migrate (migrate --write recreates it)


class Base(ReaderStream):
    def __init__(self, batch_size, num_threads, device_id, size, source):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = None
        self.size = size
        self.source = source

    def pad(self, data):
        return ndd.crop(data, crop=self.size, out_of_bounds_policy="pad")

    def offset(self, data):
        return data + ndd.Batch.broadcast(ndd.tensor(np.array([1, 2]), dtype=types.FLOAT), self.batch_size)


class Patches(Base):
    def __init__(self, batch_size, num_threads, device_id, size, source):
        super().__init__(batch_size, num_threads, device_id, size, source)
        self.shape = ndd.Batch.broadcast(ndd.tensor(np.array(self.size), dtype=types.INT64), self.batch_size)

    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            source_2 = self.source
            source_2 = source_2() if inspect.isgeneratorfunction(source_2) else source_2
            source_2_next = iter(source_2).__next__ if hasattr(source_2, '__iter__') else None
            source_2_takes_info = source_2_next is None and len(inspect.signature(source_2).parameters) > 0
            source_2_step = 0  # the iteration in the epoch, as pipeline mode counted it
            while True:
                try:
                    image, label = [list(output) for output in zip(*[source_2_next() if source_2_next else source_2(SampleInfo(source_2_step * self.batch_size + i, i, source_2_step, 0)) if source_2_takes_info else source_2() for i in range(self.batch_size)])]
                except StopIteration:
                    return  # the source is exhausted: pipe.run() raised StopIteration from here on
                source_2_step += 1
                image = ndd.as_batch(image, dtype=types.FLOAT)
                label = ndd.as_batch(label, dtype=types.INT32)
                image = ndd.slice(image, np.array([0, 0]), self.shape)
                yield self.pad(image), self.offset(label)
