# A Pipeline subclass whose data comes from an ops.ExternalSource given source= (an iterable of batches),
# built in its own __init__ with self.build(): the steps call the source as fn.external_source did.
import numpy as np
import contextlib
import inspect
import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import ReaderStream  # written by dali-migrate (migrate --write recreates it)


class SamplesPipeline(ReaderStream):
    def __init__(self, batch_size, samples, num_threads, device_id):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = 12
        self.source = samples

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
                    images, labels = source_2_next() if source_2_next else source_2(source_2_step) if source_2_takes_info else source_2()
                except StopIteration:
                    return  # the source is exhausted: pipe.run() raised StopIteration from here on
                source_2_step += 1
                images = ndd.as_batch(images, dtype=types.FLOAT)
                labels = ndd.as_batch(labels, dtype=types.UINT8)
                yield ndd.cast(images, dtype=types.INT32), labels


def first_labels(samples):
    pipe = SamplesPipeline(4, samples, 2, None)
    images, labels = next(pipe)
    return np.array(ndd.as_tensor(labels))
