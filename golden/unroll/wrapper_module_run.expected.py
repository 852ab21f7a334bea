"""A generic iterator module with no pipeline of its own: the pipelines come from the training script. It calls
build() and run(), converts the outputs with .as_tensor(), and reads max_batch_size and epoch_size("Reader")."""

import numpy as np
import torch
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import ReaderStream  # written by dali-migrate (migrate --write recreates it)


class DaliIterator:
    def __init__(self, pipelines, size=None):
        pipelines = ReaderStream.adapt(pipelines)  # nvidia.dali Pipelines or migrated ones: one interface
        self.pipes = pipelines if isinstance(pipelines, (list, tuple)) else [pipelines]
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
            images, labels = next(p)
            images = ndd.as_tensor(images)
            batches.append((torch.from_numpy(np.array(images)).to(images.torch().dtype),
                            torch.from_numpy(np.array(ndd.as_tensor(labels)))))
        self.count += self.batch_size * len(self.pipes)
        return batches

    def __len__(self):
        return -(-self.size // self.batch_size)
