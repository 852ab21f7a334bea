"""A GAN training loader module: the pipeline class and the loader over pipelines another module builds; outputs
gathered into a dict keyed by output_map, the torch device from each pipeline's device_id."""

import numpy as np
import torch
import contextlib
from nvidia.dali import types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


class GanPipeline(ReaderStream):
    def __init__(self, root, batch_size, num_threads, device_id, shard_id=0, num_shards=1):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = 12
        self.root = root
        self.shard_id = shard_id
        self.num_shards = num_shards
        self.reader = ndd.readers.File(file_root=self.root, shard_id=self.shard_id, num_shards=self.num_shards,
                                        name="Reader", max_batch_size=self.batch_size)
        self._readers = {"Reader": self.reader}

    @Prefetch(depth=2)
    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            while True:
                for jpegs, labels in self.reader.next_epoch(batch_size=self.batch_size):
                    images = ndd.decoders.image(jpegs, device="gpu", output_type=types.GRAY)
                    yield ndd.resize(images, resize_x=8, resize_y=8), labels


class GanLoader(object):
    def __init__(self, pipelines, output_map, size):
        pipelines = ReaderStream.adapt(pipelines)  # nvidia.dali Pipelines or migrated ones: one interface
        if not isinstance(pipelines, list):
            pipelines = [pipelines]
        self._num_gpus = len(pipelines)
        self.batch_size = pipelines[0].max_batch_size
        self._size = int(size)
        self._pipes = pipelines
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
            outputs.append(next(p))
        for i in range(self._num_gpus):
            dev_id = self._pipes[i].device_id
            category_outputs = dict()
            for j, out in enumerate(outputs[i]):
                category_outputs[self.output_map[j]] = out
            category_tensors = dict()
            category_shapes = dict()
            for category, out in category_outputs.items():
                category_tensors[category] = ndd.as_tensor(out)
                category_shapes[category] = list(category_tensors[category].shape)
            if self._data_batches[i][self._current_data_batch] is None:
                pyt_tensors = dict()
                for category in self._output_categories:
                    pyt_tensors[category] = torch.zeros(category_shapes[category],
                                                        dtype=category_tensors[category].torch().dtype)
                self._data_batches[i][self._current_data_batch] = pyt_tensors
            else:
                pyt_tensors = self._data_batches[i][self._current_data_batch]
            for category, tensor in category_tensors.items():
                pyt_tensors[category].copy_(tensor.torch())
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
