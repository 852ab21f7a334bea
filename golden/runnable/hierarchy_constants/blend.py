"""A graph helper that no pipeline of this module calls: its random op's batch size is its data's."""

from nvidia.dali import fn, types


def maybe_augmented(probability, augmented, original):
    """Per sample, the augmented version with the given probability, else the original one."""
    pick = fn.cast(fn.random.coin_flip(probability=probability), dtype=types.FLOAT)
    keep = 1.0 - pick
    return pick * augmented + keep * original
