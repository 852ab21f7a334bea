"""A random op in a plain helper seeded by the helper's parameter, called by a pipeline with the seed its
body draws (or the helper's default): each call gets an RNG of its own from the seed the call passes, made once
by the pipeline, after the statement that draws it."""

import random

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


def random_flip(images, probability, seed):
    flip = fn.random.coin_flip(probability=1 - probability, seed=seed)
    return fn.flip(images, horizontal=flip)


def jitter(images, seed=7):
    return images * fn.random.uniform(range=(0.9, 1.1), seed=seed)


def per_step(images, seed):
    return fn.flip(images, vertical=fn.random.coin_flip(seed=seed))


@pipeline_def
def pairs(files):
    seed = random.randint(1, 1 << 30)
    jpegs, _ = fn.readers.file(files=files, seed=seed)
    images = fn.decoders.image(jpegs)
    first = random_flip(images, 0.5, seed)
    second = random_flip(images, probability=0.5, seed=seed)
    return first, second, jitter(images), per_step(images, seed + 1)
