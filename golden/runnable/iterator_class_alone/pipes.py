"""A detection data module (as an SSD example's coco_pipeline.py): the Pipeline subclass and the iterator class the
training script uses; the script builds the pipelines, and may build some of its own."""

import torch
from nvidia.dali import fn, types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import feed_ndarray, to_torch_type


class DetectionPipeline(Pipeline):
    def __init__(self, root, batch_size, num_threads, device_id, shard_id=0, num_shards=1):
        super().__init__(batch_size=batch_size, num_threads=num_threads, device_id=device_id, seed=3)
        self.root = root
        self.shard_id = shard_id
        self.num_shards = num_shards

    def define_graph(self):
        jpegs, labels = fn.readers.file(file_root=self.root, shard_id=self.shard_id, num_shards=self.num_shards,
                                        name="Reader")
        images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
        images = fn.resize(images, resize_x=7, resize_y=5)
        return images, labels


class DALIDetectionIterator(object):
    def __init__(self, pipelines, size=None):
        if not isinstance(pipelines, list):
            pipelines = [pipelines]
        self._num_gpus = len(pipelines)
        self.batch_size = pipelines[0].max_batch_size
        self._size = size if size is not None else pipelines[0].epoch_size("Reader")
        self._pipes = pipelines
        for p in self._pipes:
            p.build()
        self._data_batches = [[None, None] for _ in range(self._num_gpus)]
        self._counter = 0
        self._current_data_batch = 0
        self.output_map = ["image", "labels"]
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
            out_images = []
            labels = []
            for j, out in enumerate(outputs[i]):
                if self.output_map[j] == "image":
                    out_images.append(out)
                elif self.output_map[j] == "labels":
                    labels.append(out)
            images = [x.as_tensor() for x in out_images]
            label_tensors = [x.as_tensor() for x in labels]
            if self._data_batches[i][self._current_data_batch] is None:
                pyt_images = [torch.zeros(x.shape(), dtype=to_torch_type[x.dtype]) for x in images]
                pyt_labels = [torch.zeros(x.shape(), dtype=to_torch_type[x.dtype]) for x in label_tensors]
                self._data_batches[i][self._current_data_batch] = (pyt_images, pyt_labels)
            else:
                pyt_images, pyt_labels = self._data_batches[i][self._current_data_batch]
            for j, arr in enumerate(images):
                feed_ndarray(arr, pyt_images[j])
            for j, arr in enumerate(label_tensors):
                feed_ndarray(arr, pyt_labels[j])
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
        self._counter = 0
