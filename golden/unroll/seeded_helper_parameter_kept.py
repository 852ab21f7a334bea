"""Random ops in plain helpers seeded by a parameter, left marked: a helper nobody in this module calls (migrated,
it would run every step, so its caller must make the RNG once and pass it: no call here to do it), and one called
with a seed the pipeline body binds twice (which value an RNG made once would take is not one seed)."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


def random_flip(images, probability, seed):
    flip = fn.random.coin_flip(probability=1 - probability, seed=seed)
    return fn.flip(images, horizontal=flip)


def shaded(images, seed):
    return images * fn.random.uniform(range=(0.5, 1.0), seed=seed)


@pipeline_def
def twice_bound(files):
    seed = 3
    jpegs, _ = fn.readers.file(files=files, seed=seed)
    seed = 4
    images = fn.decoders.image(jpegs)
    return shaded(images, seed)
