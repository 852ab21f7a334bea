"""external_source fed by instances of the module's own classes: one iterable (__iter__/__next__), one
callable without arguments (a batch callable), one called with the sample index (per-sample)."""
import numpy as np
from nvidia.dali import fn, pipeline_def


class Batches:
    def __init__(self, batch_size):
        self.batch_size = batch_size

    def __iter__(self):
        self.i = 0
        return self

    def __next__(self):
        self.i += 1
        return [np.full((2,), self.i * 10 + k, dtype=np.int32) for k in range(self.batch_size)]


class Counter:
    def __init__(self):
        self.calls = 0

    def __call__(self):
        self.calls += 1
        return [np.array([self.calls], dtype=np.int32)] * 2


class PerSample:
    def __call__(self, sample_info):
        return np.array([sample_info.idx_in_epoch], dtype=np.int32)


batches = Batches(2)
counter = Counter()
per_sample = PerSample()


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def iterated():
    data = fn.external_source(source=batches)
    return data + 1


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def called():
    data = fn.external_source(source=counter)
    return data * 2


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def sampled():
    data = fn.external_source(source=per_sample, batch=False)
    return data


def main():
    for make in (iterated, called):
        pipe = make()
        pipe.build()
        print(pipe.run()[0].as_array().tolist())


class Both:
    """Iterable and callable: DALI iterates it (it tries iter() first)."""

    def __iter__(self):
        return iter([[np.zeros((1,), dtype=np.int32)] * 2] * 3)

    def __call__(self):
        return [np.ones((1,), dtype=np.int32)] * 2


both = Both()


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def iterated_first():
    data = fn.external_source(source=both)
    return data + 0
