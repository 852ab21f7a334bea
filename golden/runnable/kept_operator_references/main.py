"""Operators handed around as values, to pipelines that stay in pipeline mode and to one that migrates."""

import sys

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.math as dmath
from nvidia.dali import pipeline_def
from nvidia.dali.backend import TensorListCPU
from nvidia.dali.pipeline import Pipeline

# (DALI operator, numpy reference, name): the pipeline that runs one gets it as a parameter
UNARY = [
    (lambda x: dmath.sqrt(x), np.sqrt, "sqrt"),
    (lambda x: dmath.abs(x - 0.5), lambda x: np.abs(x - 0.5), "abs"),
    (lambda x: dmath.exp(x * 0.1), lambda x: np.exp(x * 0.1), "exp"),
]


@pipeline_def(batch_size=2, num_threads=2, device_id=0)
def unary_pipe(root, op):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy")
    return data, op(data)


def check_unary(root, op, np_op, name):
    pipe = unary_pipe(root, op)
    pipe.build()
    data, out = pipe.run()
    assert isinstance(out, TensorListCPU)  # the test looks at pipeline mode's own type: this pipeline stays
    got = out.as_array()
    print(f"{name}: {got.shape} matches numpy {np.allclose(got, np_op(data.as_array()), rtol=1e-5)}")


@pipeline_def(batch_size=2, num_threads=2, device_id=0)
def operator_pipe(root, fn_operator):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy")
    return fn_operator(data)


def run_operator_test(root, fn_operator, reference):
    pipe = operator_pipe(root, fn_operator)
    pipe.build()
    (out,) = pipe.run()
    assert isinstance(out, TensorListCPU)
    values = [float(np.array(out.at(i))) for i in range(len(out))]
    print(f"{reference}: {np.round(values, 4).tolist()}")


@pipeline_def(batch_size=2, num_threads=2, device_id=0)
def reduced_pipe(root, reduce):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy")
    return reduce(data), dmath.sqrt(data) * 2.0


def permutation(batch_size):
    pipe = Pipeline(batch_size=batch_size, num_threads=2, device_id=0, seed=12)
    perm = fn.batch_permutation()  # built outside `with pipe:`: set_outputs makes it the pipeline's graph
    pipe.set_outputs(perm)
    pipe.build()
    for _ in range(2):
        (indices,) = pipe.run()
        print(f"permutation of {batch_size}: {sorted(int(np.array(indices.at(i))) for i in range(batch_size))}")


if __name__ == "__main__":
    root = sys.argv[1]
    for op, np_op, name in UNARY:
        check_unary(root, op, np_op, name)
    run_operator_test(root, fn_operator=fn.reductions.max, reference="max")
    permutation(4)
    pipe = reduced_pipe(root, fn.reductions.sum)
    pipe.build()
    for step in range(2):
        sums, roots = pipe.run()
        print(f"step {step}: sums {np.round([float(np.array(sums.at(i))) for i in range(len(sums))], 3).tolist()} "
              f"roots {np.round(float(roots.as_array().sum()), 3)}")
