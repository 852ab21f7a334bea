"""A pipeline's outputs unpacked into a helper's parameters migrate with the pipeline (each positional parameter
left gets an output); unpacked into a helper's *args, where the tool does not follow them, they keep their pipeline
as it was."""
import numpy as np
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def
import nvidia.dali.experimental.dynamic as ndd


def pair(root, *, batch_size=2):
    reader = ndd.readers.Numpy(file_root=root)
    while True:
        for (data,) in reader.next_epoch(batch_size=batch_size):
            yield data, data * 2


# dali-migrate: DM230 triple stays in pipeline mode with everything that uses it: line 35: other.run() (a pipeline's outputs) is unpacked into log_all()'s *outputs, which dali-migrate does not follow
@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def triple(root):
    data = fn.readers.numpy(file_root=root)
    return data, data * 2, data * 3


def show(step, first, second, *, title=""):
    print(step, np.array(ndd.as_tensor(first)).shape, np.array(second.select(0)).shape, title)


def log_all(*outputs):
    print([out.as_array().shape for out in outputs])


pipe = pair("/data")
show(0, *next(pipe))
show(1, *next(pipe), title="second")
other = triple("/data")
other.build()
# dali-migrate: DM231 other.run() (a pipeline's outputs) is unpacked into log_all()'s *outputs, which dali-migrate does not follow
log_all(*other.run())
