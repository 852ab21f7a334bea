"""Test utilities in the shape DALI's own tests keep them: a pipeline, and a helper that builds and runs whatever
pipeline it is handed and reads its outputs. Nothing in this module calls the helper: the scripts that do are
elsewhere."""

import numpy as np
from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def arrays_pipe(root):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy", name="Reader")
    return data, data * 2


def dali_run(pipe, steps):
    pipe.build()
    seen = []
    for _ in range(steps):
        first, second = pipe.run()
        whole = first.as_array()
        seen.append((whole.shape, float(whole.sum()), float(np.array(second.at(1)).max())))
    return seen
