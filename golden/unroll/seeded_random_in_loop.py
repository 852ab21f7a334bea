"""Seeded random operators called at each pass of a loop or comprehension of the pipeline body: pipeline mode
made one operator per pass, each with its own stream from the seed (equal values when the seed is the same).
A list of one ndd.random.RNG per pass, made once before the steps and indexed by the pass, keeps that; the
seed may read the pass, and the number of passes may be a parameter of the pipeline."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, seed=3)
def draws():
    outs = []
    for k in range(3):
        outs.append(fn.random.uniform(range=(0, 1), seed=42))
    return tuple(outs)


@pipeline_def(batch_size=2, seed=3)
def shifted():
    return tuple(fn.random.uniform(range=(0, 1), seed=42 + k) for k in range(2))


@pipeline_def(batch_size=2)
def views(root, n_views):
    jpegs, _ = fn.readers.file(file_root=root, seed=1)
    images = fn.decoders.image(jpegs)
    crops = [fn.random_resized_crop(images, size=32, seed=7) for i in range(n_views)]
    return tuple(crops)


@pipeline_def(batch_size=2, seed=3)
def unseeded():
    outs = []
    for k in range(3):
        outs.append(fn.random.coin_flip())
    return tuple(outs)
