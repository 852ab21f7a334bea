"""Bare @pipeline_def: the pipeline arguments come at the call site; random ops with and without
their own seed; a shuffling reader without a seed."""

import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


@Prefetch(depth=2)
def augment_pipe(root, *, batch_size, seed=None):
    rng = ndd.random.RNG(seed=seed)
    rng_1 = ndd.random.RNG(seed=7)
    reader = ndd.readers.File(file_root=root, random_shuffle=True, seed=seed)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs, device="gpu")
            images = ndd.resize(images, size=32)
            angle = ndd.random.uniform(range=(-10.0, 10.0), rng=rng_1, batch_size=batch_size)
            images = ndd.rotate(images, angle=angle, fill_value=0)
            flip = ndd.random.coin_flip(probability=0.5, rng=rng, batch_size=batch_size)
            images = ndd.flip(images, horizontal=flip)
            yield images, labels, flip


def collect(root, steps, batch_size=4):
    pipe = augment_pipe(root, batch_size=batch_size, seed=11)
    return [next(pipe) for _ in range(steps)]
