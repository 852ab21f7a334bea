"""Names bound outside the steps that the pipeline body reads and then binds again: a @pipeline_def parameter
given a random value when it is None, and a name of the function around a `with pipe:` block given one when a
flag asks for it. Pipeline mode ran the body once, so every pipe.run() drew a new value; each step of the
generator starts again from the value outside (a parameter bound before it is read is left as it is)."""

import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


@Prefetch(depth=2)
def scaled(factor=None, offset=0.0, shifts=None, *, batch_size=4, seed=1):
    ndd.random.set_seed(seed)
    while True:
        factor_step = factor  # each step starts from factor, as each pipe.run() did
        shifts_step = shifts  # each step starts from shifts, as each pipe.run() did
        data = ndd.random.uniform(range=(0, 1), shape=[2], batch_size=batch_size)
        if factor_step is None:
            factor_step = ndd.random.uniform(range=(1, 2), batch_size=batch_size)
        offset = ndd.random.uniform(range=(0, 1), batch_size=batch_size) * 0 + 1  # bound before it is read: nothing to start again
        if shifts_step is None:
            shifts_step = [ndd.random.uniform(range=(0, 1), batch_size=batch_size) for _ in range(2)]
        shifted = [data * 0 + shift for shift in shifts_step]  # the comprehension reads the steps' shifts
        yield data * 0 + factor_step, offset, shifted[0] + shifted[1]


def rotation(random_angle, angle=10.0, steps=3):
    @Prefetch(depth=2)
    def pipe_steps(*, batch_size=4, seed=2):
        ndd.random.set_seed(seed)
        while True:
            angle_step = angle  # each step starts from angle, as each pipe.run() did
            data = ndd.random.uniform(range=(0, 1), shape=[2], batch_size=batch_size)
            if random_angle:
                angle_step = ndd.random.uniform(range=(-30, 30), batch_size=batch_size)
            outputs = data * 0 + angle_step
            yield tuple(outputs) if isinstance(outputs, tuple) else (outputs,)
    pipe = pipe_steps()
    return [next(pipe) for _ in range(steps)]


def collect(factor, steps):
    pipe = scaled(factor)
    return [next(pipe) for _ in range(steps)]
