"""A test module whose pipelines stay in pipeline mode (their outputs reach check_batch, which the tool cannot
follow): the operators they get as values stay as they were. A table of lambdas over nvidia.dali.math reaches a
Pipeline subclass through nose's `yield check, ...`; an operator reaches a @pipeline_def through its parameter; an
input-less random op is built outside `with pipe:` for set_outputs. The last pipeline migrates, and so do the
operators only it gets."""

import nvidia.dali.fn as fn
import nvidia.dali.math as dmath
import nvidia.dali.ops as ops
import numpy as np
from nvidia.dali import pipeline_def
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)
from test_utils import check_batch

MATH_OPS = [
    (lambda x: dmath.sqrt(x), np.sqrt, "sqrt"),
    (lambda x: dmath.exp(x), np.exp, "exp"),
]


# dali-migrate: DM230 UnaryPipeline stays in pipeline mode with everything that uses it: line 38: out (a pipeline output (TensorList)) is passed to test_utils.check_batch, which dali-migrate cannot follow
class UnaryPipeline(Pipeline):
    def __init__(self, op, batch_size):
        super().__init__(batch_size, 2, None, seed=12)
        self.op = op
        self.source = ops.ExternalSource()

    def define_graph(self):
        self.data = self.source()
        return self.data, self.op(self.data)

    def iter_setup(self):
        self.feed_input(self.data, [np.ones((2, 2), np.float32)] * self.batch_size)


def check_unary(op, np_op, name):
    pipe = UnaryPipeline(op, 2)
    data, out = pipe.run()
    # dali-migrate: DM231 out (a pipeline output (TensorList)) is passed to test_utils.check_batch, which dali-migrate cannot follow
    check_batch(out, [np_op(np.array(data.at(i))) for i in range(2)])


def test_unary():
    for op, np_op, name in MATH_OPS:
        yield check_unary, op, np_op, name


# dali-migrate: DM230 operator_pipe stays in pipeline mode with everything that uses it: line 54: out (a pipeline output (TensorList)) is passed to test_utils.check_batch, which dali-migrate cannot follow
@pipeline_def(batch_size=2, num_threads=2, device_id=None)
def operator_pipe(fn_operator):
    return fn_operator(fn.random.uniform(range=[0, 1], shape=[4]))


def run_operator_test(fn_operator):
    pipe = operator_pipe(fn_operator)
    (out,) = pipe.run()
    # dali-migrate: DM231 out (a pipeline output (TensorList)) is passed to test_utils.check_batch, which dali-migrate cannot follow
    check_batch(out, out)


def test_sum():
    # dali-migrate: DM230 fn.reductions.sum(...) is called by operator_pipe, which stays in pipeline mode with everything that uses it, so it stays as it is: line 54: out (a pipeline output (TensorList)) is passed to test_utils.check_batch, which dali-migrate cannot follow
    run_operator_test(fn_operator=fn.reductions.sum)


def test_permutation():
    # dali-migrate: DM230 pipe stays in pipeline mode with everything that uses it: line 66: indices (a pipeline output (TensorList)) is passed to test_utils.check_batch, which dali-migrate cannot follow
    pipe = Pipeline(batch_size=4, num_threads=1, device_id=None)
    # dali-migrate: DM230 fn.batch_permutation(...) is called by pipe, which stays in pipeline mode with everything that uses it, so it stays as it is: line 66: indices (a pipeline output (TensorList)) is passed to test_utils.check_batch, which dali-migrate cannot follow
    perm = fn.batch_permutation()
    pipe.set_outputs(perm)
    (indices,) = pipe.run()
    # dali-migrate: DM231 indices (a pipeline output (TensorList)) is passed to test_utils.check_batch, which dali-migrate cannot follow
    check_batch(indices, indices)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


@Prefetch(depth=2)
def scaled_pipe(reduce, *, batch_size=2):
    while True:
        yield (reduce(ndd.random.uniform(range=[0, 1], shape=[4], batch_size=batch_size)) * 2.0,)


def test_scaled():
    pipe = scaled_pipe(ndd.reductions.max)
    (out,) = next(pipe)
    return out
