import numpy as np
import inspect
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import EpochIterator, ReaderStream  # written by dali-migrate (migrate --write recreates it)


class Samples:
    """Batches of (value, label) pairs from a list, round and round."""

    def __init__(self, values, batch_size):
        self.values, self.batch_size, self.i = values, batch_size, 0

    def __iter__(self):
        return self

    def __next__(self):
        batch = [self.values[(self.i + k) % len(self.values)] for k in range(self.batch_size)]
        self.i += self.batch_size
        return [np.array([v], np.float32) for v in batch], [np.array([v % 3], np.int32) for v in batch]


class SamplesPipeline(ReaderStream):
    def __init__(self, samples, batch_size):
        self.batch_size = batch_size
        self.num_threads = 1
        self.device_id = 0
        self.seed = 7
        self.source = samples

    def steps(self):
        if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
            ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        source_2 = self.source
        source_2 = source_2() if inspect.isgeneratorfunction(source_2) else source_2
        source_2_next = iter(source_2).__next__ if hasattr(source_2, '__iter__') else None
        source_2_takes_info = source_2_next is None and len(inspect.signature(source_2).parameters) > 0
        source_2_step = 0  # the iteration in the epoch, as pipeline mode counted it
        while True:
            try:
                values, labels = source_2_next() if source_2_next else source_2(source_2_step) if source_2_takes_info else source_2()
            except StopIteration:
                return  # the source is exhausted: pipe.run() raised StopIteration from here on
            source_2_step += 1
            values = ndd.as_batch(values)
            labels = ndd.as_batch(labels)
            yield values * 2.0, labels


class CountedLoader(EpochIterator):
    # the plugin's private counts, and a policy parameter passed by position (the fifth: fill_last_batch)
    def __init__(self, pipelines, size=-1, reader_name=None, auto_reset=False, last_batch_policy=True):
        super().__init__(pipelines, ["data", "label"], size=size, reader_name=reader_name, last_batch_policy=("FILL" if last_batch_policy else "PARTIAL") if last_batch_policy is not None else "FILL", auto_reset=auto_reset)

    def __len__(self):
        full = self._size // (self._num_gpus * self.batch_size)
        return full + (1 if self._last_batch_policy else 0)


def loader(values, batch_size):
    pipe = SamplesPipeline(Samples(values, batch_size), batch_size)
    return CountedLoader(pipe, size=len(values), auto_reset=True, last_batch_policy=False)
