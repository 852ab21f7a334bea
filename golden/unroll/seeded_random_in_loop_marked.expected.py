"""Seeded random operators at each pass of a loop whose passes are not `for i in range(n)`: a loop over a
list of values, nested loops, a seed computed in the loop. The pipeline made an operator per pass; which RNG
a pass would use is not known before the steps, so the pipeline stays in pipeline mode, marked."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


# dali-migrate: DM212 over_values stays in pipeline mode: fn.random.uniform(seed=1) in a loop or comprehension of the pipeline body: pipeline mode made one operator per pass, each its own random stream from that seed; only `for i in range(n)` with n known when the graph is defined is migrated (one ndd.random.RNG per pass)
@pipeline_def(batch_size=2, seed=3)
def over_values(scales):
    outs = []
    for scale in scales:
        outs.append(fn.random.uniform(range=(0, scale), seed=1))
    return tuple(outs)


# dali-migrate: DM212 nested stays in pipeline mode: fn.random.normal(seed=5) in a loop or comprehension of the pipeline body: pipeline mode made one operator per pass, each its own random stream from that seed, in nested loops (write one ndd.random.RNG per pass by hand)
@pipeline_def(batch_size=2, seed=3)
def nested():
    outs = []
    for i in range(2):
        for j in range(2):
            outs.append(fn.random.normal(seed=5))
    return tuple(outs)


# dali-migrate: DM212 computed_seed stays in pipeline mode: fn.random.coin_flip(seed=seed) in a loop or comprehension of the pipeline body: pipeline mode made one operator per pass, each its own random stream from that seed; its seed is computed in the loop
@pipeline_def(batch_size=2, seed=3)
def computed_seed(seeds):
    outs = []
    for k in range(2):
        seed = seeds[k] * 2
        outs.append(fn.random.coin_flip(seed=seed))
    return tuple(outs)
