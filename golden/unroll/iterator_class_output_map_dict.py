"""A GAN training loader module: the pipeline class and the loader over pipelines another module builds; outputs
gathered into a dict keyed by output_map, the torch device from each pipeline's device_id."""

import numpy as np
import torch
from nvidia.dali import fn, types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import feed_ndarray, to_torch_type


class GanPipeline(Pipeline):
    def __init__(self, root, batch_size, num_threads, device_id, shard_id=0, num_shards=1):
        super().__init__(batch_size, num_threads, device_id, seed=12)
        self.root = root
        self.shard_id = shard_id
        self.num_shards = num_shards

    def define_graph(self):
        jpegs, labels = fn.readers.file(file_root=self.root, shard_id=self.shard_id, num_shards=self.num_shards,
                                        name="Reader")
        images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
        return fn.resize(images, resize_x=8, resize_y=8), labels


class GanLoader(object):
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
        self._output_categories = set(output_map)
        self._data_batches = [[None, None] for i in range(self._num_gpus)]
        self._counter = 0
        self._current_data_batch = 0
        self._first_batch = None
        self._first_batch = self.next()

    def __next__(self):
        if self._first_batch is not None:
            batch = self._first_batch
            self._first_batch = None
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
            category_outputs = dict()
            for j, out in enumerate(outputs[i]):
                category_outputs[self.output_map[j]] = out
            category_tensors = dict()
            category_shapes = dict()
            for category, out in category_outputs.items():
                category_tensors[category] = out.as_tensor()
                category_shapes[category] = category_tensors[category].shape()
            if self._data_batches[i][self._current_data_batch] is None:
                pyt_tensors = dict()
                for category in self._output_categories:
                    pyt_tensors[category] = torch.zeros(category_shapes[category],
                                                        dtype=to_torch_type[category_tensors[category].dtype])
                self._data_batches[i][self._current_data_batch] = pyt_tensors
            else:
                pyt_tensors = self._data_batches[i][self._current_data_batch]
            for category, tensor in category_tensors.items():
                feed_ndarray(tensor, pyt_tensors[category])
        for p in self._pipes:
            p.release_outputs()
            p.schedule_run()
        copy_db_index = self._current_data_batch
        self._current_data_batch = (self._current_data_batch + 1) % 2
        self._counter += self._num_gpus * self.batch_size
        return [db[copy_db_index] for db in self._data_batches]

    def next(self):
        return self.__next__()

    def __iter__(self):
        return self

    def __len__(self):
        return self._size // self.batch_size
