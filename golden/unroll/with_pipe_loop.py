"""`with pipe:` inside a loop: each pipeline keeps the values its loop iteration gave it."""

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import Pipeline


def one_pipe_per_size(root, sizes):
    pipes = []
    for size in sizes:
        pipe = Pipeline(batch_size=2, num_threads=2, device_id=None)
        with pipe:
            jpegs, labels = fn.readers.file(file_root=root)
            images = fn.resize(fn.decoders.image(jpegs), resize_x=size, resize_y=size)
            pipe.set_outputs(fn.cast(images, dtype=types.FLOAT), labels)
        pipes.append(pipe)
    for pipe in pipes:
        pipe.build()
    return [pipe.run() for pipe in pipes]
