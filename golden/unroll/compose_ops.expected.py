"""Legacy ops.Compose chains in a Pipeline subclass: a CPU op then a GPU one (Compose moved the data to the GPU
between them), a random op without a seed of its own, a Compose inside a Compose, and a one-op chain."""

import contextlib
import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


class TrainPipe(ReaderStream):
    def __init__(self, batch_size, num_threads, device_id, data_dir, crop):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = 12
        self.input = ndd.readers.File(file_root=data_dir, random_shuffle=True, name="Reader", seed=self.seed, max_batch_size=self.batch_size)
        self._readers = {"Reader": self.input}
        self.aug = lambda *inputs, **kwargs: ndd.crop_mirror_normalize(ndd.random_resized_crop(*inputs, device="gpu", size=crop, **kwargs), device="gpu", dtype=types.FLOAT, output_layout="CHW", mean=[0.485 * 255, 0.456 * 255, 0.406 * 255], std=[0.229 * 255, 0.224 * 255, 0.225 * 255])
        self.to_gpu = lambda *inputs, **kwargs: ndd.flip(ndd.resize(*inputs, resize_shorter=crop, **kwargs), device="gpu", horizontal=1)
        self.gray = lambda *inputs, **kwargs: ndd.color_space_conversion(*inputs, image_type=types.RGB, output_type=types.GRAY, **kwargs)

    @Prefetch(depth=2)
    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            ndd.random.set_seed(self.seed)
            while True:
                for jpegs, labels in self.input.next_epoch(batch_size=self.batch_size):
                    images = ndd.decoders.image(jpegs, device="gpu", output_type=types.RGB)
                    yield self.aug(images), self.to_gpu(ndd.decoders.image(jpegs, device="cpu")), self.gray(images), labels


def steps(data_dir, n):
    pipe = TrainPipe(32, 4, 0, data_dir, 224)
    return [next(pipe) for _ in range(n)]
