"""seed= left on an ndd random op (not hoisted by unrolling) raises TypeError there: marked."""

import nvidia.dali.fn as fn


# dali-migrate: DM112 angles stays as it was (pipeline mode) for its fn.random.uniform(seed=...): pipeline mode ran it once, when a pipeline defined its graph, and an RNG made in it would restart at each call; its caller makes the RNG. ndd.random.uniform takes no seed= (TypeError) and no pipeline step the migration writes holds this call; dynamic mode's counterpart is rng=ndd.random.RNG(seed=...) made once per operator, beside the loop of steps (values differ from pipeline mode's)
def angles():
    angle = fn.random.uniform(range=(-10.0, 10.0), seed=42)
    flip = fn.random.coin_flip(probability=0.5)
    return angle, flip
