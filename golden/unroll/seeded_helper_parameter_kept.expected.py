"""Random ops in plain helpers seeded by a parameter, left marked: a helper nobody in this module calls (migrated,
it would run every step, so its caller must make the RNG once and pass it: no call here to do it), and one called
with a seed the pipeline body binds twice (which value an RNG made once would take is not one seed)."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


# dali-migrate: DM112 random_flip stays as it was (pipeline mode) for its fn.random.coin_flip(seed=...): pipeline mode ran it once, when a pipeline defined its graph, and an RNG made in it would restart at each call; its caller makes the RNG. ndd.random.coin_flip takes no seed= (TypeError) and no pipeline step the migration writes holds this call; dynamic mode's counterpart is rng=ndd.random.RNG(seed=...) made once per operator, beside the loop of steps (values differ from pipeline mode's)
def random_flip(images, probability, seed):
    flip = fn.random.coin_flip(probability=1 - probability, seed=seed)
    return fn.flip(images, horizontal=flip)


# dali-migrate: DM230 shaded builds part of twice_bound, which stays in pipeline mode with everything that uses it: line 15: shaded stays as it was (pipeline mode) for its fn.random.uniform(seed=...): pipeline mode ran it once, when a pipeline defined its graph, and an RNG made in it would restart at each call; its caller makes the RNG. ndd.random.uniform takes no seed= (TypeError) and no pipeline step the migration writes holds this call; dynamic mode's counterpart is rng=ndd.random.RNG(seed=...) made once per operator, beside the loop of steps (values differ from pipeline mode's)
def shaded(images, seed):
    # dali-migrate: DM112 shaded stays as it was (pipeline mode) for its fn.random.uniform(seed=...): pipeline mode ran it once, when a pipeline defined its graph, and an RNG made in it would restart at each call; its caller makes the RNG. ndd.random.uniform takes no seed= (TypeError) and no pipeline step the migration writes holds this call; dynamic mode's counterpart is rng=ndd.random.RNG(seed=...) made once per operator, beside the loop of steps (values differ from pipeline mode's)
    return images * fn.random.uniform(range=(0.5, 1.0), seed=seed)


# dali-migrate: DM230 twice_bound stays in pipeline mode with everything that uses it: line 15: shaded stays as it was (pipeline mode) for its fn.random.uniform(seed=...): pipeline mode ran it once, when a pipeline defined its graph, and an RNG made in it would restart at each call; its caller makes the RNG. ndd.random.uniform takes no seed= (TypeError) and no pipeline step the migration writes holds this call; dynamic mode's counterpart is rng=ndd.random.RNG(seed=...) made once per operator, beside the loop of steps (values differ from pipeline mode's)
@pipeline_def
def twice_bound(files):
    seed = 3
    jpegs, _ = fn.readers.file(files=files, seed=seed)
    seed = 4
    images = fn.decoders.image(jpegs)
    return shaded(images, seed)
