"""Seeded random operators at each pass of a loop whose passes are not `for i in range(n)`: a loop over a
list of values, nested loops, a seed computed in the loop. The pipeline made an operator per pass; which RNG
a pass would use is not known before the steps, so the pipeline stays in pipeline mode, marked."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, seed=3)
def over_values(scales):
    outs = []
    for scale in scales:
        outs.append(fn.random.uniform(range=(0, scale), seed=1))
    return tuple(outs)


@pipeline_def(batch_size=2, seed=3)
def nested():
    outs = []
    for i in range(2):
        for j in range(2):
            outs.append(fn.random.normal(seed=5))
    return tuple(outs)


@pipeline_def(batch_size=2, seed=3)
def computed_seed(seeds):
    outs = []
    for k in range(2):
        seed = seeds[k] * 2
        outs.append(fn.random.coin_flip(seed=seed))
    return tuple(outs)
