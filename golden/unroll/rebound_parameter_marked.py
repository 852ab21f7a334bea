"""A parameter the body reads and binds again, and that a lambda of the body takes as its own parameter: the steps
cannot start from its value under a name of their own without changing what the lambda means, so the pipeline
stays in pipeline mode, marked."""

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=1)
def scaled(factor=None):
    data = fn.random.uniform(range=(0, 1), shape=[2])
    if factor is None:
        factor = fn.random.uniform(range=(1, 2))
    times = lambda x, factor=factor: x * factor
    return times(data)
