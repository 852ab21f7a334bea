"""A detection data module (coco_pipeline.py in an SSD training example): the COCO pipeline class and the iterator
class over the pipelines that train.py builds; nothing here makes a pipeline."""

import numpy as np
import torch
from nvidia.dali import fn, types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import feed_ndarray, to_torch_type


class COCOPipeline(Pipeline):
    def __init__(self, batch_size, device_id, file_root, annotations_file, num_gpus, num_threads=1, seed=15):
        super(COCOPipeline, self).__init__(batch_size=batch_size, device_id=device_id, num_threads=num_threads,
                                           seed=seed)
        self.file_root = file_root
        self.annotations_file = annotations_file
        self.shard = device_id
        self.num_gpus = num_gpus

    def define_graph(self):
        inputs, bboxes, labels = fn.readers.coco(file_root=self.file_root, annotations_file=self.annotations_file,
                                                 shard_id=self.shard, num_shards=self.num_gpus, ratio=True,
                                                 ltrb=True, name="Reader")
        images = fn.decoders.image(inputs, device="mixed", output_type=types.RGB)
        images = fn.resize(images, resize_x=300, resize_y=300)
        images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW")
        return images, bboxes.gpu(), labels.gpu()


class DALICOCOIterator(object):
    def __init__(self, pipelines, size):
        if not isinstance(pipelines, list):
            pipelines = [pipelines]
        self._num_gpus = len(pipelines)
        self.batch_size = pipelines[0].max_batch_size
        self._size = size
        self._pipes = pipelines
        for p in self._pipes:
            p.build()
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
            p._prefetch()
        for p in self._pipes:
            outputs.append(p.share_outputs())
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
            images = [x.as_tensor() for x in out_images]
            images_shape = [x.shape() for x in images]
            torch_gpu_device = torch.device("cuda", dev_id)
            pyt_images = [torch.zeros(shape, dtype=to_torch_type[images[0].dtype], device=torch_gpu_device)
                          for shape in images_shape]
            for j, i_arr in enumerate(images):
                feed_ndarray(i_arr, pyt_images[j])
            box_counts = [[len(np.array(b.as_cpu()[k])) for k in range(len(b))] for b in bboxes]
            self._data_batches[i][self._current_data_batch] = (pyt_images, box_counts, len(labels))
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
        for p in self._pipes:
            p.reset()
