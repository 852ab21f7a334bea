"""Code that expects a pipeline's error: each pipeline checked where it is built or run stays in pipeline mode
(DM238); the one whose steps are only stopped by StopIteration migrates."""
import numpy as np
import pytest
from nvidia.dali import fn, pipeline_def
from nose_utils import assert_raises, raises

BATCHES = [[np.full((2, 3), i, dtype=np.float32)] * 2 for i in range(3)]


@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def transposed(perm):
    data = fn.external_source(source=BATCHES, batch=True)
    return fn.transpose(data, perm=perm)


@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def reshaped(shape):
    data = fn.external_source(source=BATCHES, batch=True)
    return fn.reshape(data, shape=shape)


@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def expanded(axes):
    data = fn.external_source(source=BATCHES, batch=True)
    return fn.expand_dims(data, axes=axes)


@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def scaled():
    data = fn.external_source(source=BATCHES, batch=True)
    return data * 2


def test_bad_permutation():
    pipe = transposed([0, 0])
    with pytest.raises(RuntimeError):
        pipe.build()


def test_bad_shape_callable():
    pipe = reshaped([7])
    assert_raises(RuntimeError, pipe.build)


def run_once(pipe):
    pipe.build()
    return pipe.run()


@raises(RuntimeError, glob="*not enough dimensions*")
def test_bad_axes():
    run_once(expanded([4]))


def count_steps():
    pipe = scaled()
    pipe.build()
    steps = 0
    while True:
        try:
            pipe.run()
            steps += 1
        except StopIteration:
            return steps
