"""Bare @pipeline_def: the pipeline arguments come at the call site; random ops with and without
their own seed; a shuffling reader without a seed."""

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def
def augment_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="mixed")
    images = fn.resize(images, size=32)
    angle = fn.random.uniform(range=(-10.0, 10.0), seed=7)
    images = fn.rotate(images, angle=angle, fill_value=0)
    flip = fn.random.coin_flip(probability=0.5)
    images = fn.flip(images, horizontal=flip)
    return images, labels, flip


def collect(root, steps, batch_size=4):
    pipe = augment_pipe(root, batch_size=batch_size, num_threads=2, device_id=0, seed=11,
                        prefetch_queue_depth=2, exec_async=False, exec_pipelined=False)
    pipe.build()
    return [pipe.run() for _ in range(steps)]
