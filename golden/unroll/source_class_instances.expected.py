"""external_source fed by instances of the module's own classes: one iterable (__iter__/__next__), one
callable without arguments (a batch callable), one called with the sample index (per-sample)."""
import numpy as np
import contextlib
import nvidia.dali.experimental.dynamic as ndd
from nvidia.dali.types import SampleInfo


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


def iterated(*, batch_size=2, num_threads=1, device_id=None, seed=None):
    with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
        if num_threads is not None and num_threads > ndd.get_num_threads():
            ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        for data in batches:
            data = ndd.as_batch(data)
            yield (data + 1,)


def called(*, batch_size=2, num_threads=1, device_id=None, seed=None):
    with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
        if num_threads is not None and num_threads > ndd.get_num_threads():
            ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        while True:
            try:
                data = counter()
            except StopIteration:
                return  # the source is exhausted: pipe.run() raised StopIteration from here on
            data = ndd.as_batch(data)
            yield (data * 2,)


def sampled(*, batch_size=2):
    source_step = 0  # the iteration in the epoch, as pipeline mode counted it
    while True:
        try:
            data = [per_sample(SampleInfo(source_step * batch_size + i, i, source_step, 0)) for i in range(batch_size)]
        except StopIteration:
            return  # the source is exhausted: pipe.run() raised StopIteration from here on
        source_step += 1
        data = ndd.as_batch(data)
        yield (data,)


def main():
    for make in (iterated, called):
        pipe = make()
        print(np.array(ndd.as_tensor(next(pipe)[0])).tolist())


class Both:
    """Iterable and callable: DALI iterates it (it tries iter() first)."""

    def __iter__(self):
        return iter([[np.zeros((1,), dtype=np.int32)] * 2] * 3)

    def __call__(self):
        return [np.ones((1,), dtype=np.int32)] * 2


both = Both()


def iterated_first(*, batch_size=2):
    for data in both:
        data = ndd.as_batch(data)
        yield (data + 0,)
