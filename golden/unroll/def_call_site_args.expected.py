"""Bare @pipeline_def: the pipeline arguments come at the call site; random ops with and without
their own seed; a shuffling reader without a seed."""

import nvidia.dali.experimental.dynamic as ndd


def augment_pipe(root, *, batch_size, num_threads=None, device_id=None, seed=None):
    if num_threads is not None and num_threads > ndd.get_num_threads():
        ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
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
    pipe = augment_pipe(root, batch_size=batch_size, num_threads=2, device_id=0, seed=11)
    return [next(pipe) for _ in range(steps)]
