"""A factory function that builds a GPU pipeline and returns it."""

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


def make_pipe(root, batch_size=4):
    pipe = Pipeline(batch_size=batch_size, num_threads=2, device_id=0, seed=9)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=root, seed=4, random_shuffle=True)
        images = fn.decoders.image(jpegs, device="mixed")
        images = fn.resize(images, size=(20, 20), interp_type=types.INTERP_LINEAR)
        pipe.set_outputs(images, labels.gpu())
    return pipe
