"""`import nvidia.dali as dali` and `from nvidia.dali import fn` forms, and nested fn submodules."""

import nvidia.dali as dali
from nvidia.dali import fn, math


def graph(jpegs):
    images = dali.fn.decoders.image(jpegs)
    images = fn.noise.gaussian(images, stddev=0.1)
    bbox = fn.random_bbox_crop
    flip = fn.coin_flip(probability=0.5)
    return math.max(images, 0), flip, bbox
