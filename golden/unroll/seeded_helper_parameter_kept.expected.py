"""Random ops in plain helpers seeded by a parameter, left marked: a helper nobody in this module calls (migrated,
it would run every step, so its caller must make the RNG once and pass it: no call here to do it), and one called
with a seed the pipeline body binds twice (which value an RNG made once would take is not one seed)."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def
import nvidia.dali.experimental.dynamic as ndd


def random_flip(images, probability, seed):
    # dali-migrate: DM112 seed= on ndd.random.coin_flip raises TypeError, and an ndd.random.RNG(seed=...) made in this function would restart at each call (a pipeline ran a helper once, when it defined its graph; migrated, it runs every step): let its caller create rng = ndd.random.RNG(seed=...) once and pass rng=rng
    flip = ndd.random.coin_flip(probability=1 - probability, seed=seed, batch_size=images.batch_size)
    return ndd.flip(images, horizontal=flip)


# dali-migrate: DM230 shaded builds part of twice_bound, which stays in pipeline mode with everything that uses it: line 15: seed= on ndd.random.uniform raises TypeError, and an ndd.random.RNG(seed=...) made in this function would restart at each call (a pipeline ran a helper once, when it defined its graph; migrated, it runs every step): let its caller create rng = ndd.random.RNG(seed=...) once and pass rng=rng
def shaded(images, seed):
    # dali-migrate: DM112 seed= on ndd.random.uniform raises TypeError, and an ndd.random.RNG(seed=...) made in this function would restart at each call (a pipeline ran a helper once, when it defined its graph; migrated, it runs every step): let its caller create rng = ndd.random.RNG(seed=...) once and pass rng=rng
    return images * fn.random.uniform(range=(0.5, 1.0), seed=seed)


# dali-migrate: DM230 twice_bound stays in pipeline mode with everything that uses it: line 15: seed= on ndd.random.uniform raises TypeError, and an ndd.random.RNG(seed=...) made in this function would restart at each call (a pipeline ran a helper once, when it defined its graph; migrated, it runs every step): let its caller create rng = ndd.random.RNG(seed=...) once and pass rng=rng
@pipeline_def
def twice_bound(files):
    seed = 3
    jpegs, _ = fn.readers.file(files=files, seed=seed)
    seed = 4
    images = fn.decoders.image(jpegs)
    return shaded(images, seed)
