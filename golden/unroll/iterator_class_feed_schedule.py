"""A benchmark's batch iterator over one pipeline another module builds: schedule_run() ahead, share_outputs(),
feed_ndarray into preallocated torch buffers, release_outputs() and schedule_run() again."""

import torch
from nvidia.dali import fn, types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import feed_ndarray


class MaskPipeline(Pipeline):
    def __init__(self, root, batch_size, num_threads, device_id):
        super().__init__(batch_size=batch_size, num_threads=num_threads, device_id=device_id)
        self.root = root

    def define_graph(self):
        jpegs, labels = fn.readers.file(file_root=self.root, name="Reader")
        images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
        images = fn.resize(images, resize_x=32, resize_y=32)
        return fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW"), labels


class BatchIterator:
    def __init__(self, pipe, steps):
        self.pipe = pipe
        self.steps = steps
        self.pipe.build()
        self.pipe.schedule_run()
        self.buffers = None
        self.done = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.done >= self.steps:
            raise StopIteration
        images, labels = self.pipe.share_outputs()
        images_tensor = images.as_tensor()
        labels_tensor = labels.as_tensor()
        if self.buffers is None:
            self.buffers = (torch.empty(images_tensor.shape(), dtype=torch.float32),
                            torch.empty(labels_tensor.shape(), dtype=torch.int32))
        feed_ndarray(images_tensor, self.buffers[0])
        feed_ndarray(labels_tensor, self.buffers[1])
        self.pipe.release_outputs()
        self.pipe.schedule_run()
        self.done += 1
        return self.buffers
