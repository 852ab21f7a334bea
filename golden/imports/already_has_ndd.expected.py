"""A file that already imports ndd gets no second import."""

import nvidia.dali.experimental.dynamic as ndd


def augment(images):
    return ndd.flip(ndd.resize(images, size=3))
