"""A `with pipe:` block at module level that reads a name of the module and binds it again when a flag asks
for it: pipeline mode ran the block once, so every pipe.run() drew a new angle; each step of the generator
starts again from the module's value (the generator would otherwise make the name a local of its own)."""

import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)

RANDOM_ANGLE = True
angle = 10.0


@Prefetch(depth=2)
def pipe_steps(*, batch_size=4, seed=2):
    ndd.random.set_seed(seed)
    while True:
        angle_step = angle  # each step starts from angle, as each pipe.run() did
        data = ndd.random.uniform(range=(0, 1), shape=[2], batch_size=batch_size)
        if RANDOM_ANGLE:
            angle_step = ndd.random.uniform(range=(-30, 30), batch_size=batch_size)
        outputs = data * 0 + angle_step
        yield tuple(outputs) if isinstance(outputs, tuple) else (outputs,)


pipe = pipe_steps()
angles = [next(pipe) for _ in range(3)]
