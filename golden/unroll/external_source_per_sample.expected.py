"""external_source sources that pipeline mode calls with their position: per-sample callables
(batch=False) given a SampleInfo, a callable object with two outputs run by worker processes
(parallel=True), per-sample generators and lists, and batch callables given a BatchInfo or the
iteration number. Each stops with StopIteration part way through a batch or an epoch."""
import numpy as np
from nvidia.dali import types
import nvidia.dali.experimental.dynamic as ndd
from nvidia.dali.types import BatchInfo
from nvidia.dali.types import SampleInfo

SAMPLES = 11


def sample_at(info):
    if info.idx_in_epoch >= SAMPLES:
        raise StopIteration
    return np.array([info.idx_in_epoch, info.idx_in_batch, info.iteration, info.epoch_idx], dtype=np.int32)


class ImageAndLabel:
    """A stateless loader, as a parallel source must be: everything comes from the sample's index."""

    def __init__(self, count):
        self.count = count

    def __call__(self, sample_info):
        if sample_info.idx_in_epoch >= self.count:
            raise StopIteration
        rng = np.random.default_rng(sample_info.idx_in_epoch)
        image = rng.integers(0, 255, size=(4, 2 + sample_info.idx_in_epoch % 3, 3), dtype=np.uint8)
        return image, np.array([sample_info.idx_in_epoch % 2], dtype=np.int64)


def numbered():
    for k in range(SAMPLES):
        yield np.full((k % 4 + 1,), k, dtype=np.float32)


def whole_batch(batch_info):
    if batch_info.iteration >= 3:
        raise StopIteration
    return [np.array([batch_info.iteration, batch_info.epoch_idx, k], np.int32) for k in range(4)]


def by_iteration(iteration):
    if iteration >= 2:
        raise StopIteration
    return np.full((4, 2), iteration, np.float32)


loader = ImageAndLabel(9)


def indexed(*, batch_size=4):
    source_step = 0  # the iteration in the epoch, as pipeline mode counted it
    while True:
        try:
            info = [sample_at(SampleInfo(source_step * batch_size + i, i, source_step, 0)) for i in range(batch_size)]
        except StopIteration:
            return  # the source is exhausted: pipe.run() raised StopIteration from here on
        source_step += 1
        info = ndd.as_batch(info)
        yield (info * 2,)


def loaded(crop, *, batch_size=4):
    source_step = 0  # the iteration in the epoch, as pipeline mode counted it
    while True:
        try:
            images, labels = [list(output) for output in zip(*[loader(SampleInfo(source_step * batch_size + i, i, source_step, 0)) for i in range(batch_size)])]
        except StopIteration:
            return  # the source is exhausted: pipe.run() raised StopIteration from here on
        source_step += 1
        images = ndd.as_batch(images)
        labels = ndd.as_batch(labels)
        images = ndd.crop(images, crop=(crop, 2), dtype=types.UINT8)
        yield images, labels


def from_generator(*, batch_size=4):
    source = numbered()
    while True:
        try:
            values = [next(source) for i in range(batch_size)]
        except StopIteration:
            return  # the source is exhausted: pipe.run() raised StopIteration from here on
        values = ndd.as_batch(values, layout="X")
        yield (values + 1,)


def from_list(*, batch_size=4):
    source = iter([np.array([k], np.uint8) for k in range(6)])
    while True:
        try:
            values = [next(source) for i in range(batch_size)]
        except StopIteration:
            return  # the source is exhausted: pipe.run() raised StopIteration from here on
        values = ndd.as_batch(values)
        yield (values,)


def with_batch_info(*, batch_size=4):
    source_step = 0  # the iteration in the epoch, as pipeline mode counted it
    while True:
        try:
            data = whole_batch(BatchInfo(source_step, 0))
        except StopIteration:
            return  # the source is exhausted: pipe.run() raised StopIteration from here on
        source_step += 1
        data = ndd.as_batch(data)
        yield (data,)


def with_iteration(*, batch_size=4):
    source = lambda i: by_iteration(i)
    source_step = 0  # the iteration in the epoch, as pipeline mode counted it
    while True:
        try:
            data = source(source_step)
        except StopIteration:
            return  # the source is exhausted: pipe.run() raised StopIteration from here on
        source_step += 1
        data = ndd.as_batch(data)
        yield (data,)
