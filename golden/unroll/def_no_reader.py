"""A pipeline with no reader: random data only, one output."""

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=8, num_threads=1, device_id=None)
def noise_pipe(shape):
    noise = fn.random.normal(shape=shape)
    return noise


def collect(steps):
    pipe = noise_pipe([2, 3])
    pipe.build()
    out = []
    for _ in range(steps):
        (noise,) = pipe.run()
        out.append((noise,))
    return out
