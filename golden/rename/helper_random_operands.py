"""A graph helper no pipeline here calls (another module's or a later cell's pipeline builds with it): its
random op gets the batch size of its data, which arrives as an operator's input or only as an operand of
arithmetic on an operator's result. A function this module calls itself is not guessed at."""

import nvidia.dali.fn as fn
import nvidia.dali.types as types


def blend(probability, augmented, original):
    pick = fn.cast(fn.random.coin_flip(probability=probability), dtype=types.FLOAT)
    return pick * augmented + (1.0 - pick) * original


def jitter(images):
    return fn.rotate(images, angle=fn.random.uniform(range=(-5.0, 5.0)))


def noise(scale):
    return fn.random.normal() * scale


value = noise(2.0)
