"""seed= left on an ndd random op (not hoisted by unrolling) raises TypeError there: marked."""

import nvidia.dali.fn as fn


def angles():
    angle = fn.random.uniform(range=(-10.0, 10.0), seed=42)
    flip = fn.random.coin_flip(probability=0.5)
    return angle, flip
