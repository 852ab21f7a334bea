"""A Pipeline subclass built from legacy ops objects, some with names removed from modern DALI."""

import contextlib
import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


class HybridValPipe(ReaderStream):
    def __init__(self, batch_size, num_threads, device_id, data_dir, crop):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = 12
        self.input = ndd.readers.File(file_root=data_dir, random_shuffle=False, name="Reader", max_batch_size=self.batch_size)
        self._readers = {"Reader": self.input}
        self.res = lambda *inputs, **kwargs: ndd.resize(*inputs, device="gpu", resize_shorter=crop + 8, **kwargs)
        self.cmnp = lambda *inputs, **kwargs: ndd.crop_mirror_normalize(*inputs, device="gpu", output_dtype=types.FLOAT,
                                            output_layout=types.NCHW, crop=(crop, crop),
                                            image_type=types.RGB, mean=[0.0, 0.0, 0.0],
                                            std=[255.0, 255.0, 255.0], **kwargs)

    @Prefetch(depth=2)
    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            ndd.random.set_seed(self.seed)
            while True:
                for jpegs, labels in self.input.next_epoch(batch_size=self.batch_size):
                    rng = ndd.random.coin_flip(probability=0.5, batch_size=self.batch_size)
                    images = ndd.decoders.image(jpegs, device="gpu", output_type=types.RGB)
                    images = self.res(images)
                    output = self.cmnp(images.gpu())
                    yield output, labels, rng


def collect(data_dir, steps):
    pipe = HybridValPipe(batch_size=4, num_threads=2, device_id=0, data_dir=data_dir, crop=24)
    return [next(pipe) for _ in range(steps)]
