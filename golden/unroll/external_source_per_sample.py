"""external_source sources that pipeline mode calls with their position: per-sample callables
(batch=False) given a SampleInfo, a callable object with two outputs run by worker processes
(parallel=True), per-sample generators and lists, and batch callables given a BatchInfo or the
iteration number. Each stops with StopIteration part way through a batch or an epoch."""
import numpy as np
from nvidia.dali import fn, pipeline_def, types

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


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def indexed():
    info = fn.external_source(source=sample_at, batch=False)
    return info * 2


@pipeline_def(batch_size=4, num_threads=1, device_id=None, py_num_workers=2, py_start_method="fork")
def loaded(crop):
    images, labels = fn.external_source(loader, num_outputs=2, batch=False, parallel=True,
                                        prefetch_queue_depth=2)
    images = fn.crop(images, crop=(crop, 2), dtype=types.UINT8)
    return images, labels


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def from_generator():
    values = fn.external_source(source=numbered, batch=False, layout="X")
    return values + 1


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def from_list():
    values = fn.external_source(source=[np.array([k], np.uint8) for k in range(6)], batch=False)
    return values


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def with_batch_info():
    data = fn.external_source(source=whole_batch, batch_info=True)
    return data


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def with_iteration():
    data = fn.external_source(source=lambda i: by_iteration(i))
    return data
