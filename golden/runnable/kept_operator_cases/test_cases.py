"""Operators in tables of test cases: nose2's @params hands each case to the test function, and a helper
generator in another module yields (check, operator, ...) cases the way nose's test generators do."""

import os

import numpy as np
import nvidia.dali.fn as fn
from nose2.tools import params
from nvidia.dali import pipeline_def, types
from nvidia.dali.backend import TensorListCPU

from case_suite import suite


def values(out):
    return [np.round(np.array(out.at(i)), 3).tolist() for i in range(len(out))]


def run_node(node):
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def node_pipe():
        return node

    pipe = node_pipe()
    pipe.build()
    return values(pipe.run()[0])


@params((fn.zeros, (2, 3)), (fn.ones, (1, 2)))
def test_filled(op, shape):
    # the operator runs outside any pipeline, with no input: it made one sample per sample of the pipeline's
    # batch; dynamic mode would need the batch size here, which this code does not know (kept, marked)
    print("filled:", run_node(op(shape=shape)))


@params((fn.reductions.sum, {}), (fn.reductions.max, {"axes": 0}))
def test_reduced(op, kwargs):
    # the operator is called inside the pipeline, on the reader's batch: it migrates with it
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def reduced_pipe():
        data = fn.readers.numpy(file_root=os.environ["CASES_DATA"], file_filter="*.npy")
        return op(data, **kwargs)

    pipe = reduced_pipe()
    pipe.build()
    (out,) = pipe.run()
    print("reduced:", [np.round(np.array(out.at(i)), 3).tolist() for i in range(len(out))])


def test_suite():
    cases = [(fn.reductions.min, {}, 1), (fn.reductions.mean, {}, 2)]
    yield from suite(os.environ["CASES_DATA"], cases)


def run_kept(make_output):
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def kept_pipe():
        data = types.Constant(np.arange(6, dtype=np.float32).reshape(2, 3), device="cpu")
        return make_output(data)

    pipe = kept_pipe()
    pipe.build()
    (out,) = pipe.run()
    assert isinstance(out, TensorListCPU)  # pipeline mode's own type: this pipeline stays
    print("kept:", [np.round(float(np.array(out.at(i))), 3) for i in range(len(out))])


def test_helper_itself():
    def scaled_sum(data):
        return fn.reductions.sum(data) * 3.0

    run_kept(scaled_sum)


@params(0.5, 2.0)
def test_lambda_over_helper(factor):
    def scaled_sum(data, factor=1.0):
        return fn.reductions.sum(data) * factor

    # the lambda names no operator; the def it calls does, and stays with the kept pipeline
    run_kept(lambda data: scaled_sum(data, factor=factor))
