"""Names bound outside the steps that the pipeline body reads and then binds again: a @pipeline_def parameter
given a random value when it is None, and a name of the function around a `with pipe:` block given one when a
flag asks for it. Pipeline mode ran the body once, so every pipe.run() drew a new value; each step of the
generator starts again from the value outside (a parameter bound before it is read is left as it is)."""

from nvidia.dali import Pipeline, fn, pipeline_def


@pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=1)
def scaled(factor=None, offset=0.0, shifts=None):
    data = fn.random.uniform(range=(0, 1), shape=[2])
    if factor is None:
        factor = fn.random.uniform(range=(1, 2))
    offset = fn.random.uniform(range=(0, 1)) * 0 + 1  # bound before it is read: nothing to start again
    if shifts is None:
        shifts = [fn.random.uniform(range=(0, 1)) for _ in range(2)]
    shifted = [data * 0 + shift for shift in shifts]  # the comprehension reads the steps' shifts
    return data * 0 + factor, offset, shifted[0] + shifted[1]


def rotation(random_angle, angle=10.0, steps=3):
    pipe = Pipeline(batch_size=4, num_threads=1, device_id=None, seed=2)
    with pipe:
        data = fn.random.uniform(range=(0, 1), shape=[2])
        if random_angle:
            angle = fn.random.uniform(range=(-30, 30))
        pipe.set_outputs(data * 0 + angle)
    pipe.build()
    return [pipe.run() for _ in range(steps)]


def collect(factor, steps):
    pipe = scaled(factor)
    pipe.build()
    return [pipe.run() for _ in range(steps)]
