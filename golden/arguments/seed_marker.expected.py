"""seed= left on an ndd random op (not hoisted by unrolling) raises TypeError there: marked."""

import nvidia.dali.experimental.dynamic as ndd


def angles():
    # dali-migrate: DM216 ndd.random.uniform has no batch_size here: it returns one value for the whole batch, not one per sample; pass the batch size in and call it with batch_size=
    # dali-migrate: DM112 seed= on ndd.random.uniform raises TypeError, and an ndd.random.RNG(seed=...) made in this function would restart at each call (a pipeline ran a helper once, when it defined its graph; migrated, it runs every step): let its caller create rng = ndd.random.RNG(seed=...) once and pass rng=rng
    angle = ndd.random.uniform(range=(-10.0, 10.0), seed=42)
    # dali-migrate: DM216 ndd.random.coin_flip has no batch_size here: it returns one value for the whole batch, not one per sample; pass the batch size in and call it with batch_size=
    flip = ndd.random.coin_flip(probability=0.5)
    return angle, flip
