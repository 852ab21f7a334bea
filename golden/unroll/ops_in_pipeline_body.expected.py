"""Operator objects made in a @pipeline_def body and called there, as a segmentation loader crops images
and masks at the same random places: one seed the body draws, given to the random op and (ignored) to the
crop's calls."""

import random

import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


@Prefetch(depth=2)
def pairs(image_files, mask_files, size, *, batch_size, seed=None):
    seed = random.randint(1, 1 << 30)  # the same for images and masks
    rng_1 = ndd.random.RNG(seed=seed)
    rng_2 = ndd.random.RNG(seed=seed)
    rng_3 = ndd.random.RNG(seed=seed)
    rng_4 = ndd.random.RNG(seed=seed)
    reader = ndd.readers.File(files=image_files, seed=seed)
    reader_2 = ndd.readers.File(files=mask_files, seed=seed)

    def endless(reader):  # one reader's batches, epoch after epoch, as pipe.run() read them
        while True:
            yield from reader.next_epoch(batch_size=batch_size)

    for (images, _), (masks, _) in zip(endless(reader), endless(reader_2)):
        images = ndd.decoders.image(images, device="gpu")
        masks = ndd.decoders.image(masks, device="gpu")

        images = ndd.crop(images, crop_pos_x=ndd.random.uniform(range=(0.0, 1.0), rng=rng_1, batch_size=batch_size), crop_pos_y=ndd.random.uniform(range=(0.0, 1.0), rng=rng_2, batch_size=batch_size), crop=size, output_dtype=types.FLOAT)
        masks = ndd.crop(masks, crop_pos_x=ndd.random.uniform(range=(0.0, 1.0), rng=rng_3, batch_size=batch_size), crop_pos_y=ndd.random.uniform(range=(0.0, 1.0), rng=rng_4, batch_size=batch_size), crop=size, output_dtype=types.FLOAT)
        yield images, masks


def loader(images, masks):
    pipe = pairs(images, masks, 64, batch_size=2)
    return [next(pipe) for _ in range(2)]
