"""A benchmark's batch iterator over one pipeline another module builds: schedule_run() ahead, share_outputs(),
feed_ndarray into preallocated torch buffers, release_outputs() and schedule_run() again."""

import torch
import contextlib
from nvidia.dali import types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


class MaskPipeline(ReaderStream):
    def __init__(self, root, batch_size, num_threads, device_id):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = None
        self.root = root
        self.reader = ndd.readers.File(file_root=self.root, name="Reader", max_batch_size=self.batch_size)
        self._readers = {"Reader": self.reader}

    @Prefetch(depth=2)
    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            while True:
                for jpegs, labels in self.reader.next_epoch(batch_size=self.batch_size):
                    images = ndd.decoders.image(jpegs, device="gpu", output_type=types.RGB)
                    images = ndd.resize(images, resize_x=32, resize_y=32)
                    yield ndd.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW"), labels


class BatchIterator:
    def __init__(self, pipe, steps):
        pipe = ReaderStream.adapt(pipe)  # nvidia.dali Pipelines or migrated ones: one interface
        self.pipe = pipe
        self.steps = steps
        self.buffers = None
        self.done = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.done >= self.steps:
            raise StopIteration
        images, labels = next(self.pipe)
        images_tensor = ndd.as_tensor(images)
        labels_tensor = ndd.as_tensor(labels)
        if self.buffers is None:
            self.buffers = (torch.empty(list(images_tensor.shape), dtype=torch.float32),
                            torch.empty(list(labels_tensor.shape), dtype=torch.int32))
        self.buffers[0].copy_(images_tensor.torch())
        self.buffers[1].copy_(labels_tensor.torch())
        self.done += 1
        return self.buffers
