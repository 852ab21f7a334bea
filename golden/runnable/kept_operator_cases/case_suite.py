"""A helper generator of test cases: each case is (check, arguments...), as nose's test generators yield."""

import numpy as np
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def
from nvidia.dali.backend import TensorListCPU


def _check_operator(root, op, fixed, steps):
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def case_pipe():
        data = fn.readers.numpy(file_root=root, file_filter="*.npy")
        return op(data, **fixed)

    pipe = case_pipe()
    pipe.build()
    for _ in range(steps):
        (out,) = pipe.run()
        assert isinstance(out, TensorListCPU)  # pipeline mode's own type: this pipeline stays
        print("case:", [np.round(float(np.array(out.at(i))), 3) for i in range(len(out))])


def suite(root, cases):
    class Case:
        def __init__(self, op, fixed, steps):
            self.op, self.fixed, self.steps = op, fixed, steps

    for case_args in cases:
        case = Case(*case_args)  # unpacked into a class of its own: its operator stays where the case says
        yield _check_operator, root, case.op, case.fixed, case.steps
