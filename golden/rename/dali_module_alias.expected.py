"""`import nvidia.dali as dali` and `from nvidia.dali import fn` forms, and nested fn submodules."""

import nvidia.dali.experimental.dynamic as ndd


def graph(jpegs):
    images = ndd.decoders.image(jpegs)
    images = ndd.noise.gaussian(images, stddev=0.1)
    bbox = ndd.random_bbox_crop
    # dali-migrate: DM216 ndd.random.coin_flip has no batch_size here: it returns one value for the whole batch, not one per sample; pass the batch size in and call it with batch_size=
    flip = ndd.random.coin_flip(probability=0.5)
    return ndd.math.max(images, 0), flip, bbox
