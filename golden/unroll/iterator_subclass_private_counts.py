import numpy as np
from nvidia.dali import ops
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIClassificationIterator


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


class SamplesPipeline(Pipeline):
    def __init__(self, samples, batch_size):
        super().__init__(batch_size=batch_size, num_threads=1, device_id=0, seed=7)
        self.source = ops.ExternalSource(source=samples, num_outputs=2)

    def define_graph(self):
        values, labels = self.source()
        return values * 2.0, labels


class CountedLoader(DALIClassificationIterator):
    # the plugin's private counts, and a policy parameter passed by position (the fifth: fill_last_batch)
    def __init__(self, pipelines, size=-1, reader_name=None, auto_reset=False, last_batch_policy=True):
        super().__init__(pipelines, size, reader_name, auto_reset, last_batch_policy)

    def __len__(self):
        full = self._size // (self._num_gpus * self.batch_size)
        return full + (1 if self._last_batch_policy else 0)


def loader(values, batch_size):
    pipe = SamplesPipeline(Samples(values, batch_size), batch_size)
    pipe.build()
    return CountedLoader(pipe, size=len(values), auto_reset=True, last_batch_policy=False)
