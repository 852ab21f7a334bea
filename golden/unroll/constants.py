"""Constants inside a pipeline: scalar constants in arithmetic and arguments, constant nodes held in
names, fn.constant filling a shape; an array in a variable (whose numpy type pipeline mode narrowed) is
typed at run time as pipeline mode typed it."""
import numpy as np
from nvidia.dali import fn, pipeline_def, types

OFFSETS = np.arange(5)


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def constants(root):
    images, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(images)
    scale = types.Constant([0.5, 1.0, 1.5])
    bright = images * types.Constant(2).uint8()
    rotated = fn.rotate(bright, angle=types.Constant(30.0))
    border = fn.constant(idata=0, shape=[1, 3], dtype=types.UINT8)
    return rotated * scale, border, labels + 1


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def narrowed(root):
    images, labels = fn.readers.file(file_root=root)
    return labels + types.Constant(OFFSETS)
