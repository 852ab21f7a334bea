"""A generic iterator module with no pipeline of its own, over schedule_run()/share_outputs()/release_outputs():
the pipelines come from the training script."""

import torch
import numpy as np
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import ReaderStream  # written by dali-migrate (migrate --write recreates it)


class DaliLoader:
    def __init__(self, pipelines, steps):
        pipelines = ReaderStream.adapt(pipelines)  # nvidia.dali Pipelines or migrated ones: one interface
        self._pipes = pipelines
        self._steps = steps

    def __iter__(self):
        for _ in range(self._steps):
            batch = []
            for pipe in self._pipes:
                images, labels = next(pipe)
                images = ndd.as_tensor(images.cpu())
                out = torch.empty(list(images.shape), dtype=torch.uint8)
                out.copy_(images.torch())
                batch.append((out, np.array(ndd.as_tensor(labels))))
            yield batch


def epoch_steps(pipe, reader):
    pipe = ReaderStream.adapt(pipe)  # nvidia.dali Pipelines or migrated ones: one interface
    return pipe.epoch_size(reader) // pipe.max_batch_size
