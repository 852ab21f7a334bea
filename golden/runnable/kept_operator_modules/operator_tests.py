"""Helpers that build a pipeline around the operator they are given."""

import numpy as np
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def
from nvidia.dali.backend import TensorListCPU


@pipeline_def(batch_size=2, num_threads=2, device_id=0)
def operator_pipe(root, fn_operator):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy")
    return fn_operator(data)


def run_operator_test(root, fn_operator, name):
    pipe = operator_pipe(root, fn_operator)
    pipe.build()
    (out,) = pipe.run()
    assert isinstance(out, TensorListCPU)  # pipeline mode's own type: this pipeline stays
    print(f"{name}: {np.round([float(np.array(out.at(i))) for i in range(len(out))], 4).tolist()}")


@pipeline_def(batch_size=2, num_threads=2, device_id=0)
def applied_pipe(root, op):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy")
    return op(data) * 2.0


def apply_operator(root, op, steps):
    pipe = applied_pipe(root, op)
    pipe.build()
    for step in range(steps):
        (out,) = pipe.run()
        print(f"step {step}: {np.round([float(np.array(out.at(i))) for i in range(len(out))], 3).tolist()}")
