"""A generic iterator module with no pipeline of its own, over schedule_run()/share_outputs()/release_outputs():
the pipelines come from the training script."""

import torch
from nvidia.dali.plugin.pytorch import feed_ndarray


class DaliLoader:
    def __init__(self, pipelines, steps):
        self._pipes = pipelines
        self._steps = steps
        for pipe in self._pipes:
            pipe.build()
            pipe.schedule_run()

    def __iter__(self):
        for _ in range(self._steps):
            batch = []
            for pipe in self._pipes:
                images, labels = pipe.share_outputs()
                images = images.as_cpu().as_tensor()
                out = torch.empty(images.shape(), dtype=torch.uint8)
                feed_ndarray(images, out)
                batch.append((out, labels.as_array()))
                pipe.release_outputs()
                pipe.schedule_run()
            yield batch


def epoch_steps(pipe, reader):
    return pipe.epoch_size(reader) // pipe.max_batch_size
