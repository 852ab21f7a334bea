"""A file that already imports ndd gets no second import."""

import nvidia.dali.experimental.dynamic as ndd
import nvidia.dali.fn as fn


def augment(images):
    return fn.flip(ndd.resize(images, size=3))
