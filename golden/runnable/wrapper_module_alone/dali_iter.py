"""A generic iterator module over DALI pipelines (no pipeline of its own): the training script builds the pipelines
and hands them over."""

import numpy as np
import torch
from nvidia.dali.plugin.pytorch import feed_ndarray, to_torch_type


class DaliIterator:
    """One batch of each pipeline per step, as torch tensors, by run() and a numpy copy."""

    def __init__(self, pipelines, size=None):
        self.pipes = pipelines if isinstance(pipelines, list) else [pipelines]
        for p in self.pipes:
            p.build()
        self.batch_size = self.pipes[0].max_batch_size
        self.size = size if size is not None else self.pipes[0].epoch_size("Reader")
        self.count = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.count >= self.size:
            self.count = 0
            raise StopIteration
        batches = []
        for p in self.pipes:
            images, labels = p.run()
            images = torch.from_numpy(np.array(images.as_tensor()))
            labels = torch.from_numpy(np.array(labels.as_tensor()))
            batches.append((images, labels))
        self.count += self.batch_size * len(self.pipes)
        return batches

    def __len__(self):
        return (self.size + self.batch_size - 1) // self.batch_size


class SharedIterator:
    """The same by schedule_run()/share_outputs()/release_outputs(), copied into torch tensors with feed_ndarray."""

    def __init__(self, pipelines, steps):
        self.pipes = pipelines
        self.steps = steps
        for p in self.pipes:
            p.build()
        for p in self.pipes:
            p.schedule_run()

    def __iter__(self):
        for _ in range(self.steps):
            out = []
            for p in self.pipes:
                outputs = p.share_outputs()
                tensors = [o.as_tensor() for o in outputs]
                copies = [torch.empty(t.shape(), dtype=to_torch_type[t.dtype]) for t in tensors]
                for t, c in zip(tensors, copies):
                    feed_ndarray(t, c)
                out.append(copies)
                p.release_outputs()
                p.schedule_run()
            yield out


def batch_count(pipe, name):
    """Steps in one epoch of the reader ``name``."""
    return -(-pipe.epoch_size(name) // pipe.max_batch_size)
