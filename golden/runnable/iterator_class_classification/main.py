"""A user iterator base class and its classification subclass over @pipeline_def pipelines, two epochs."""

import sys

import numpy as np
import torch
from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.plugin.pytorch import feed_ndarray


@pipeline_def(batch_size=3, num_threads=2, device_id=0)
def folder_pipe(root, shard_id=0, num_shards=1):
    jpegs, labels = fn.readers.file(file_root=root, shard_id=shard_id, num_shards=num_shards,
                                    pad_last_batch=True, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
    images = fn.resize(images, resize_x=4, resize_y=4)
    return images, labels


class BatchLoader:
    """Per-pipeline dicts of torch tensors, one epoch of `size` samples at a time."""

    def __init__(self, pipelines, output_map, size):
        if not isinstance(pipelines, (list, tuple)):
            pipelines = [pipelines]
        self._pipes = pipelines
        self.output_map = output_map
        self._size = size
        self.batch_size = pipelines[0].max_batch_size
        for p in self._pipes:
            p.build()
            p.schedule_run()
        self._counter = 0
        self._buffers = [[None, None] for _ in self._pipes]
        self._slot = 0
        self._first = None
        self._first = self.next()

    def __len__(self):
        return -(-self._size // (self.batch_size * len(self._pipes)))

    def __iter__(self):
        return self

    def __next__(self):
        if self._first is not None:
            first, self._first = self._first, None
            return first
        if self._counter >= self._size:
            raise StopIteration
        steps = []
        for p in self._pipes:
            steps.append(p.share_outputs())
        for index, step in enumerate(steps):
            if self._buffers[index][self._slot] is None:
                made = {}
                for name, tl in zip(self.output_map, step):
                    dense = tl.as_tensor()
                    made[name] = torch.empty(dense.shape(), dtype=torch.uint8 if name == "data" else torch.int32)
                self._buffers[index][self._slot] = made
            for name, tl in zip(self.output_map, step):
                feed_ndarray(tl.as_tensor(), self._buffers[index][self._slot][name])
        for p in self._pipes:
            p.release_outputs()
            p.schedule_run()
        slot = self._slot
        self._slot = 1 - self._slot
        self._counter += self.batch_size * len(self._pipes)
        return [dict(buffers[slot]) for buffers in self._buffers]

    def next(self):
        return self.__next__()

    def reset(self):
        self._counter = 0
        for p in self._pipes:
            p.reset()


class ClassificationLoader(BatchLoader):
    def __init__(self, pipelines, size):
        super().__init__(pipelines, ["data", "label"], size)


def sample_shapes(pipe):
    """Per-sample shapes of one step, read sample by sample."""
    images, labels = pipe.run()
    return [images[k].shape() for k in range(len(images))], [int(labels[k].shape()[0]) for k in range(len(labels))]


def make_loader(root, shards):
    pipes = [folder_pipe(root, shard_id=s, num_shards=shards) for s in range(shards)]
    return ClassificationLoader(pipes, pipes[0].epoch_size("Reader"))


if __name__ == "__main__":
    loader = make_loader(sys.argv[1], 2)
    print("len", len(loader), "batch", loader.batch_size)
    for epoch in range(2):
        for step, per_pipe in enumerate(loader):
            for k, out in enumerate(per_pipe):
                data, label = out["data"], out["label"]
                print(epoch, step, k, tuple(data.shape), data.dtype, int(data.sum()), label.view(-1).tolist())
        loader.reset()
    print("shapes", sample_shapes(folder_pipe(sys.argv[1])))
