"""Style 1: a @pipeline_def function."""

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=3)
def decorated_pipe(root, size=32):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=(size, size), interp_type=types.INTERP_LINEAR)
    flip = fn.random.coin_flip()
    images = fn.flip(images, horizontal=flip)
    return images, labels
