"""An ops object handed to code the tool cannot follow (a registry of another package) stays as it is: whatever
calls it there may build a pipeline-mode graph. The pipeline that calls it here stays in pipeline mode with it, and
so does every ops object that pipeline calls (one unit), while a pipeline that shares nothing with them migrates."""

from nvidia.dali import fn, ops, pipeline_def
from augmentations import register

flip = ops.Flip(horizontal=1)
register("flip", flip)
rotate = ops.Rotate(angle=90)
blur = ops.GaussianBlur(window_size=3)


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def kept(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    return flip(images), rotate(images), labels


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def migrated(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return blur(fn.decoders.image(jpegs)), labels
