"""Epochs driven by pipe.run() and pipe.reset(): sources with cycle="raise" (a generator function and a list of
batches) and a batch_info callable that raises StopIteration after three batches; each epoch runs until
StopIteration, and reset() starts the next."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types

SCALE = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0


def ramps():
    for step in range(3):
        yield [np.arange(4, dtype=np.float32) * SCALE + step, np.arange(4, dtype=np.float32) - step]


FIXED = [[np.full((2, 2), k, dtype=np.int32), np.full((2, 2), -k, dtype=np.int32)] for k in range(1, 3)]


def numbered(info):
    if info.iteration >= 3:
        raise StopIteration
    return [np.array([info.iteration, info.epoch_idx], dtype=np.int64)] * 2


@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def ramp_pipe():
    values = fn.external_source(source=ramps, cycle="raise")
    return values * 2, fn.reductions.sum(values, axes=0)


@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def fixed_pipe():
    blocks = fn.external_source(FIXED, cycle="raise", dtype=types.INT32)
    return blocks + 1,


@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def numbered_pipe():
    ids = fn.external_source(source=numbered, batch_info=True)
    return ids,


def one_epoch(pipe):
    steps = []
    while True:
        try:
            outputs = pipe.run()
        except StopIteration:
            return steps
        steps.append([np.array(out.as_tensor()).tolist() for out in outputs])


if __name__ == "__main__":
    pipes = {"ramp": ramp_pipe(), "fixed": fixed_pipe(), "numbered": numbered_pipe()}
    for pipe in pipes.values():
        pipe.build()
    for epoch in range(3):
        for name, pipe in pipes.items():
            steps = one_epoch(pipe)
            print(f"{name} epoch {epoch}: {len(steps)} steps {steps}")
            try:
                pipe.run()
                print(f"{name}: a step after the end")
            except StopIteration:
                print(f"{name}: StopIteration again until reset()")
            pipe.reset()
