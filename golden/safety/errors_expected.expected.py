"""Code that expects a pipeline's error: each pipeline checked where it is built or run stays in pipeline mode
(DM238); the one whose steps are only stopped by StopIteration migrates."""
import numpy as np
import pytest
from nvidia.dali import fn, pipeline_def
import nvidia.dali.experimental.dynamic as ndd
from nose_utils import assert_raises, raises

BATCHES = [[np.full((2, 3), i, dtype=np.float32)] * 2 for i in range(3)]


# dali-migrate: DM230 transposed stays in pipeline mode with everything that uses it: line 38: pipe.build() is inside pytest.raises(RuntimeError), which expects its error there: a migrated pipeline raises it later (its first step or output read) or not at all
@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def transposed(perm):
    data = fn.external_source(source=BATCHES, batch=True)
    return fn.transpose(data, perm=perm)


# dali-migrate: DM230 reshaped stays in pipeline mode with everything that uses it: line 43: pipe.build is inside assert_raises(RuntimeError, ...), which expects its error there: a migrated pipeline raises it later (its first step or output read) or not at all
@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def reshaped(shape):
    data = fn.external_source(source=BATCHES, batch=True)
    return fn.reshape(data, shape=shape)


# dali-migrate: DM230 expanded stays in pipeline mode with everything that uses it: line 53: expanded([4]) is inside the test test_bad_axes decorated with @raises(RuntimeError, glob="*not enough dimensions*"), which expects its error there: a migrated pipeline raises it later (its first step or output read) or not at all
@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def expanded(axes):
    data = fn.external_source(source=BATCHES, batch=True)
    return fn.expand_dims(data, axes=axes)


def scaled(*, batch_size=2):
    for data in BATCHES:
        data = ndd.as_batch(data)
        yield (data * 2,)


def test_bad_permutation():
    pipe = transposed([0, 0])
    with pytest.raises(RuntimeError):
        # dali-migrate: DM238 pipe.build() is inside pytest.raises(RuntimeError), which expects its error there: a migrated pipeline raises it later (its first step or output read) or not at all
        pipe.build()


def test_bad_shape_callable():
    pipe = reshaped([7])
    # dali-migrate: DM238 pipe.build is inside assert_raises(RuntimeError, ...), which expects its error there: a migrated pipeline raises it later (its first step or output read) or not at all
    assert_raises(RuntimeError, pipe.build)


def run_once(pipe):
    pipe.build()
    return pipe.run()


@raises(RuntimeError, glob="*not enough dimensions*")
def test_bad_axes():
    # dali-migrate: DM238 expanded([4]) is inside the test test_bad_axes decorated with @raises(RuntimeError, glob="*not enough dimensions*"), which expects its error there: a migrated pipeline raises it later (its first step or output read) or not at all
    run_once(expanded([4]))


def count_steps():
    pipe = scaled()
    steps = 0
    while True:
        try:
            next(pipe)
            steps += 1
        except StopIteration:
            return steps
