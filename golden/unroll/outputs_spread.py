"""A pipeline's outputs unpacked into a helper's parameters migrate with the pipeline (each positional parameter
left gets an output); unpacked into a helper's *args, where the tool does not follow them, they keep their pipeline
as it was."""
import numpy as np
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def pair(root):
    data = fn.readers.numpy(file_root=root)
    return data, data * 2


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def triple(root):
    data = fn.readers.numpy(file_root=root)
    return data, data * 2, data * 3


def show(step, first, second, *, title=""):
    print(step, first.as_array().shape, second.at(0).shape, title)


def log_all(*outputs):
    print([out.as_array().shape for out in outputs])


pipe = pair("/data")
pipe.build()
show(0, *pipe.run())
show(1, *pipe.run(), title="second")
other = triple("/data")
other.build()
log_all(*other.run())
