"""Operator objects in a @pipeline_def body that stay objects: one handed on as a value, one whose
constructor reads a name the body changes after it, a random one whose call is given its own seed=. The
pipeline stays in pipeline mode (marked)."""

import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
from nvidia.dali import pipeline_def


def apply(op, data):
    return op(data)


@pipeline_def
def handed_on(files):
    jpegs, _ = fn.readers.file(files=files)
    images = fn.decoders.image(jpegs)
    flip = ops.Flip(horizontal=1)
    return apply(flip, images)


@pipeline_def
def changed_after(files, size):
    jpegs, _ = fn.readers.file(files=files)
    images = fn.decoders.image(jpegs)
    resize = ops.Resize(resize_x=size)
    size = size * 2
    return resize(images), fn.resize(images, resize_x=size)


@pipeline_def
def seeded_call(files):
    jpegs, _ = fn.readers.file(files=files)
    coin = ops.random.CoinFlip(probability=0.5, seed=3)
    return jpegs, coin(seed=4)
