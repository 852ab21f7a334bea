"""A pipeline with no reader: random data only, one output."""

import nvidia.dali.experimental.dynamic as ndd


def noise_pipe(shape, *, batch_size=8, num_threads=1, device_id=None, seed=None):
    if num_threads is not None and num_threads > ndd.get_num_threads():
        ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
    if seed is not None:
        ndd.random.set_seed(seed)
    while True:
        noise = ndd.random.normal(shape=shape, batch_size=batch_size)
        yield (noise,)


def collect(steps):
    pipe = noise_pipe([2, 3])
    out = []
    for _ in range(steps):
        (noise,) = next(pipe)
        out.append((noise,))
    return out
