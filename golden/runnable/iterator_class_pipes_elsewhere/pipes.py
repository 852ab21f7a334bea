"""A data module in the shape of detection and GAN training code: the pipeline class and the iterator class that
double-buffers its outputs into torch tensors live here; the training script builds the pipelines."""

import numpy as np
import torch
from nvidia.dali import fn, types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import feed_ndarray, to_torch_type


class ShardPipeline(Pipeline):
    def __init__(self, root, batch_size, num_threads, device_id, shard_id=0, num_shards=1):
        super().__init__(batch_size, num_threads, device_id, seed=5)
        self.root = root
        self.shard_id = shard_id
        self.num_shards = num_shards

    def define_graph(self):
        jpegs, labels = fn.readers.file(file_root=self.root, shard_id=self.shard_id, num_shards=self.num_shards,
                                        name="Reader")
        images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
        return fn.resize(images, resize_x=6, resize_y=4), labels


class DoubleBufferedLoader(object):
    def __init__(self, pipelines, output_map, size):
        if not isinstance(pipelines, list):
            pipelines = [pipelines]
        self._num_gpus = len(pipelines)
        self.batch_size = pipelines[0].max_batch_size
        self._size = int(size)
        self._pipes = pipelines
        for p in self._pipes:
            p.build()
        self.output_map = output_map
        self._data_batches = [[None, None] for _ in range(self._num_gpus)]
        self._counter = 0
        self._current = 0
        for p in self._pipes:
            p._prefetch()
        self._first_batch = None
        self._first_batch = self.next()

    def __next__(self):
        if self._first_batch is not None:
            batch, self._first_batch = self._first_batch, None
            return batch
        if self._counter >= self._size:
            raise StopIteration
        outputs = []
        for p in self._pipes:
            p._prefetch()
        for p in self._pipes:
            outputs.append(p.share_outputs())
        for i in range(self._num_gpus):
            dev_id = self._pipes[i].device_id
            device = torch.device("cuda", dev_id) if dev_id is not None else torch.device("cpu")
            category_outputs = dict()
            for j, out in enumerate(outputs[i]):
                category_outputs[self.output_map[j]] = out
            category_tensors = dict()
            for name, out in category_outputs.items():
                category_tensors[name] = out.as_tensor()
            if self._data_batches[i][self._current] is None:
                buffers = dict()
                for name, tensor in category_tensors.items():
                    buffers[name] = torch.zeros(tensor.shape(), dtype=to_torch_type[tensor.dtype], device=device)
                self._data_batches[i][self._current] = buffers
            for name, tensor in category_tensors.items():
                feed_ndarray(tensor, self._data_batches[i][self._current][name])
        for p in self._pipes:
            p.release_outputs()
            p.schedule_run()
        current, self._current = self._current, 1 - self._current
        self._counter += self._num_gpus * self.batch_size
        return [batches[current] for batches in self._data_batches]

    def next(self):
        return self.__next__()

    def __iter__(self):
        return self

    def __len__(self):
        return int(np.ceil(self._size / (self.batch_size * self._num_gpus)))

    def reset(self):
        self._counter = 0
