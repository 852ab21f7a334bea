"""A random op in a plain helper seeded by the helper's parameter, called by a pipeline with the seed its
body draws (or the helper's default): each call gets an RNG of its own from the seed the call passes, made once
by the pipeline, after the statement that draws it."""

import random
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


def random_flip(images, probability, seed, *, rng):
    flip = ndd.random.coin_flip(probability=1 - probability, rng=rng, batch_size=images.batch_size)
    return ndd.flip(images, horizontal=flip)


def jitter(images, seed=7, *, rng):
    return images * ndd.random.uniform(range=(0.9, 1.1), rng=rng, batch_size=images.batch_size)


def per_step(images, seed, *, rng):
    return ndd.flip(images, vertical=ndd.random.coin_flip(rng=rng, batch_size=images.batch_size))


@Prefetch(depth=2)
def pairs(files, *, batch_size, seed=None):
    rng_3 = ndd.random.RNG(seed=7)
    seed = random.randint(1, 1 << 30)
    rng_1 = ndd.random.RNG(seed=seed)
    rng_2 = ndd.random.RNG(seed=seed)
    rng_4 = ndd.random.RNG(seed=seed + 1)
    reader = ndd.readers.File(files=files, seed=seed)
    while True:
        for jpegs, _ in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs)
            first = random_flip(images, 0.5, seed, rng=rng_1)
            second = random_flip(images, probability=0.5, seed=seed, rng=rng_2)
            yield first, second, jitter(images, rng=rng_3), per_step(images, seed + 1, rng=rng_4)
