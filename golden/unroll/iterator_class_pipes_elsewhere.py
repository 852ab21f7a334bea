"""A detection data module: a Pipeline subclass and an iterator class over pipelines that train.py builds."""

import numpy as np
import torch
from nvidia.dali import fn, types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import feed_ndarray, to_torch_type


class GrayPipe(Pipeline):
    def __init__(self, batch_size, num_threads, root, shard_id, num_shards, device_id):
        super().__init__(batch_size, num_threads, device_id, seed=7)
        self.root = root
        self.shard_id = shard_id
        self.num_shards = num_shards

    def define_graph(self):
        jpegs, labels = fn.readers.file(file_root=self.root, shard_id=self.shard_id,
                                        num_shards=self.num_shards, name="Reader")
        images = fn.decoders.image(jpegs, device="cpu", output_type=types.GRAY)
        images = fn.resize(images, resize_x=6, resize_y=5)
        return images, labels


class DALIGenericIterator(object):
    def __init__(self, pipelines, output_map, size):
        if not isinstance(pipelines, list):
            pipelines = [pipelines]
        self._num_gpus = len(pipelines)
        assert pipelines is not None
        self.batch_size = pipelines[0].max_batch_size
        self._size = size
        self._pipes = pipelines
        for p in self._pipes:
            p.build()
        self._data_batches = [[None, None] for i in range(self._num_gpus)]
        self._counter = 0
        self._current_data_batch = 0
        self.output_map = output_map
        for p in self._pipes:
            p._prefetch()
        self._first_batch = None
        self._first_batch = self.next()

    def __next__(self):
        if self._first_batch is not None:
            batch = self._first_batch
            self._first_batch = None
            return batch
        if self._counter > self._size:
            raise StopIteration
        outputs = []
        for p in self._pipes:
            p._prefetch()
        for p in self._pipes:
            outputs.append(p.share_outputs())
        for i in range(self._num_gpus):
            out_images = []
            labels = []
            for j, out in enumerate(outputs[i]):
                if self.output_map[j] == "label":
                    labels.append(out)
                else:
                    out_images.append(out)
            images = [x.as_tensor() for x in out_images]
            images_shape = [x.shape() for x in images]
            labels_tensor = [x.as_tensor() for x in labels]
            labels_shape = [x.shape() for x in labels_tensor]
            if self._data_batches[i][self._current_data_batch] is None:
                image_type = to_torch_type[images[0].dtype]
                label_type = to_torch_type[labels_tensor[0].dtype]
                torch_gpu_device = torch.device("cpu")
                torch_cpu_device = torch.device("cpu")
                pyt_images = [torch.zeros(shape, dtype=image_type, device=torch_gpu_device) for shape in images_shape]
                pyt_labels = [torch.zeros(shape, dtype=label_type, device=torch_cpu_device) for shape in labels_shape]
                self._data_batches[i][self._current_data_batch] = (pyt_images, pyt_labels)
            else:
                pyt_images, pyt_labels = self._data_batches[i][self._current_data_batch]
            for j, i_arr in enumerate(images):
                feed_ndarray(i_arr, pyt_images[j])
            for j, l_arr in enumerate(labels_tensor):
                feed_ndarray(l_arr, pyt_labels[j])
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

    def reset(self):
        if self._counter > self._size:
            self._counter = self._counter % self._size
        else:
            print("DALI iterator does not support resetting while epoch is not finished. Ignoring...")
