"""Graph parts and a pipeline factory in one module (as a test suite's utils): a source helper whose reader is
named, and a function that builds its own pipeline around a per-sample external source and returns it."""
import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


def counting_pipeline(batch_size, shape):
    def sample(info):
        return np.full(shape, info.idx_in_epoch, dtype=np.int32)

    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=None)
    def counting():
        return fn.external_source(source=sample, batch=False, dtype=types.INT32)

    return counting()


def labelled_images(root, size):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    images = fn.decoders.image(jpegs)
    return fn.resize(images, resize_x=size, resize_y=size), labels
