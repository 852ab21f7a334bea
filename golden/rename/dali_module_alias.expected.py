"""`import nvidia.dali as dali` and `from nvidia.dali import fn` forms, and nested fn submodules."""

import nvidia.dali.experimental.dynamic as ndd


def graph(jpegs):
    images = ndd.decoders.image(jpegs)
    images = ndd.noise.gaussian(images, stddev=0.1)
    bbox = ndd.random_bbox_crop
    flip = ndd.random.coin_flip(probability=0.5, batch_size=jpegs.batch_size)
    return ndd.math.max(images, 0), flip, bbox
