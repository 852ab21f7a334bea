"""A Pipeline subclass with ops objects under their current names; an op built conditionally in
__init__; a per-op seed on a random op."""

import contextlib
from nvidia.dali import types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


class TrainPipe(ReaderStream):
    def __init__(self, batch_size, num_threads, device_id, data_dir, crop, dali_cpu=False):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = 12
        self.input = ndd.readers.File(file_root=data_dir, random_shuffle=True, seed=1234,
                                      pad_last_batch=True, name="Reader", max_batch_size=self.batch_size)
        self._readers = {"Reader": self.input}
        if dali_cpu:
            self.decode = lambda *inputs, **kwargs: ndd.decoders.image(*inputs, device="cpu", output_type=types.RGB, **kwargs)
        else:
            self.decode = lambda *inputs, **kwargs: ndd.decoders.image(*inputs, device="gpu", output_type=types.RGB, **kwargs)
        self.res = lambda *inputs, **kwargs: ndd.resize(*inputs, device="gpu", resize_x=crop, resize_y=crop, **kwargs)

    @Prefetch(depth=2)
    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            rng_1 = ndd.random.RNG(seed=99)
            while True:
                for jpegs, labels in self.input.next_epoch(batch_size=self.batch_size):
                    images = self.res(self.decode(jpegs))
                    mirror = ndd.random.coin_flip(probability=0.5, rng=rng_1, batch_size=self.batch_size)
                    yield ndd.crop_mirror_normalize(images, device="gpu", dtype=types.FLOAT, output_layout="CHW",
                                                       mean=[128.0, 128.0, 128.0], std=[64.0, 64.0, 64.0]), labels, ndd.crop_mirror_normalize(images, mirror=mirror, device="gpu", dtype=types.FLOAT, output_layout="CHW",
                                                       mean=[128.0, 128.0, 128.0], std=[64.0, 64.0, 64.0]), mirror


def collect(data_dir, steps):
    pipe = TrainPipe(4, 2, device_id=0, data_dir=data_dir, crop=24, dali_cpu=True)
    return [next(pipe) for _ in range(steps)]
