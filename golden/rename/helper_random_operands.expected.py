"""A graph helper no pipeline here calls (another module's or a later cell's pipeline builds with it): its
random op gets the batch size of its data, which arrives as an operator's input or only as an operand of
arithmetic on an operator's result. A function this module calls itself is not guessed at."""

import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd


def blend(probability, augmented, original):
    pick = ndd.cast(ndd.random.coin_flip(probability=probability, batch_size=augmented.batch_size), dtype=types.FLOAT)
    return pick * augmented + (1.0 - pick) * original


def jitter(images):
    return ndd.rotate(images, angle=ndd.random.uniform(range=(-5.0, 5.0), batch_size=images.batch_size))


def noise(scale):
    # dali-migrate: DM216 ndd.random.normal has no batch_size here: it returns one value for the whole batch, not one per sample; pass the batch size in and call it with batch_size=
    return ndd.random.normal() * scale


value = noise(2.0)
