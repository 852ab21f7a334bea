"""A detection data module (coco_pipeline.py in an SSD training example): the COCO pipeline class and the iterator
class over the pipelines that train.py builds; nothing here makes a pipeline."""

import numpy as np
import torch
import contextlib
from nvidia.dali import types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


class COCOPipeline(ReaderStream):
    def __init__(self, batch_size, device_id, file_root, annotations_file, num_gpus, num_threads=1, seed=15):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = seed
        self.file_root = file_root
        self.annotations_file = annotations_file
        self.shard = device_id
        self.num_gpus = num_gpus
        self.reader = ndd.readers.COCO(file_root=self.file_root, annotations_file=self.annotations_file,
                                                 shard_id=self.shard, num_shards=self.num_gpus, ratio=True,
                                                 ltrb=True, name="Reader", max_batch_size=self.batch_size)
        self._readers = {"Reader": self.reader}

    @Prefetch(depth=2)
    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            while True:
                for inputs, bboxes, labels in self.reader.next_epoch(batch_size=self.batch_size):
                    images = ndd.decoders.image(inputs, device="gpu", output_type=types.RGB)
                    images = ndd.resize(images, resize_x=300, resize_y=300)
                    images = ndd.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW")
                    yield images, bboxes.gpu(), labels.gpu()


class DALICOCOIterator(object):
    def __init__(self, pipelines, size):
        pipelines = ReaderStream.adapt(pipelines)  # nvidia.dali Pipelines or migrated ones: one interface
        if not isinstance(pipelines, list):
            pipelines = [pipelines]
        self._num_gpus = len(pipelines)
        self.batch_size = pipelines[0].max_batch_size
        self._size = size
        self._pipes = pipelines
        self._data_batches = [[None, None, None] for i in range(self._num_gpus)]
        self._counter = 0
        self._current_data_batch = 0
        self.output_map = ["image", "bboxes", "labels"]
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
            outputs.append(next(p))
        for i in range(self._num_gpus):
            dev_id = self._pipes[i].device_id
            out_images = []
            bboxes = []
            labels = []
            for j, out in enumerate(outputs[i]):
                if self.output_map[j] == "image":
                    out_images.append(out)
                elif self.output_map[j] == "bboxes":
                    bboxes.append(out)
                elif self.output_map[j] == "labels":
                    labels.append(out)
            images = [ndd.as_tensor(x) for x in out_images]
            images_shape = [list(x.shape) for x in images]
            torch_gpu_device = torch.device("cuda", dev_id)
            pyt_images = [torch.zeros(shape, dtype=images[0].torch().dtype, device=torch_gpu_device)
                          for shape in images_shape]
            for j, i_arr in enumerate(images):
                pyt_images[j].copy_(i_arr.torch())
            box_counts = [[len(np.array(b.cpu().select(k))) for k in range(b.batch_size)] for b in bboxes]
            self._data_batches[i][self._current_data_batch] = (pyt_images, box_counts, len(labels))
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
        for p in self._pipes:
            p.reset()
