"""Seeded random operators called at each pass of a loop or comprehension of the pipeline body: pipeline mode
made one operator per pass, each with its own stream from the seed (equal values when the seed is the same).
A list of one ndd.random.RNG per pass, made once before the steps and indexed by the pass, keeps that; the
seed may read the pass, and the number of passes may be a parameter of the pipeline."""

import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


@Prefetch(depth=2)
def draws(*, batch_size=2, seed=3):
    rng_1 = [ndd.random.RNG(seed=42) for k in range(3)]
    while True:
        outs = []
        for k in range(3):
            outs.append(ndd.random.uniform(range=(0, 1), rng=rng_1[k], batch_size=batch_size))
        yield tuple(outs)


@Prefetch(depth=2)
def shifted(*, batch_size=2, seed=3):
    rng_2 = [ndd.random.RNG(seed=42 + k) for k in range(2)]
    while True:
        yield tuple(ndd.random.uniform(range=(0, 1), rng=rng_2[k], batch_size=batch_size) for k in range(2))


@Prefetch(depth=2)
def views(root, n_views, *, batch_size=2, seed=None):
    rng_3 = [ndd.random.RNG(seed=7) for i in range(n_views)]
    reader = ndd.readers.File(file_root=root, seed=1)
    while True:
        for jpegs, _ in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs)
            crops = [ndd.random_resized_crop(images, size=32, rng=rng_3[i]) for i in range(n_views)]
            yield tuple(crops)


@Prefetch(depth=2)
def unseeded(*, batch_size=2, seed=3):
    rng = ndd.random.RNG(seed=seed)
    while True:
        outs = []
        for k in range(3):
            outs.append(ndd.random.coin_flip(rng=rng, batch_size=batch_size))
        yield tuple(outs)
