"""Seeded random operators made outside a pipeline's own body, as DALI's tests write them."""

import numpy as np
from nvidia.dali import Pipeline, fn, pipeline_def, types


def random_background():
    return fn.random.uniform(range=(-5, 10), dtype=types.INT32, seed=12321)


@pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=3)
def backgrounds():
    background = random_background()
    return background, fn.random.uniform(range=(0.0, 1.0), seed=7)


def thresholded(threshold):
    pipe = Pipeline(batch_size=4, num_threads=1, device_id=None, seed=5)
    with pipe:
        values = fn.random.uniform(range=(0.0, 1.0), seed=11)
        pipe.set_outputs(values, values > threshold)
    return pipe


def check_thresholds():
    threshold = fn.random.uniform(range=(0.4, 0.6), seed=1515)
    pipe = thresholded(threshold)
    pipe.build()
    for step in range(2):
        values, above = pipe.run()
        print(f"thresholded step {step}: {np.round(values.as_array(), 4).tolist()} "
              f"{above.as_array().astype(int).tolist()}")


if __name__ == "__main__":
    pipe = backgrounds()
    pipe.build()
    for step in range(3):
        background, uniform = pipe.run()
        print(f"backgrounds step {step}: {background.as_array().tolist()} {np.round(uniform.as_array(), 4).tolist()}")
    check_thresholds()
