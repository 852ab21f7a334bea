"""The project's own test helper, named and shaped like the one DALI's tests import (test_utils.to_array):
a numpy copy of a pipeline output, a whole TensorList (its samples stacked) or one sample of it. This
project's pipelines run on the CPU, so it takes CPU outputs only."""

import numpy as np
from nvidia.dali.backend import TensorListCPU


def to_array(output):
    if isinstance(output, TensorListCPU):
        output = output.as_tensor()
    return np.array(output)
