import numpy as np
import contextlib
import nvidia.dali.types as types

import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)
from .pipeline import GenericPipeline


class TrainPipeline(GenericPipeline):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.crop_shape = ndd.Batch.broadcast(ndd.tensor(np.array(self.patch_size), dtype=types.INT64), self.batch_size)
        self.crop_shape_float = ndd.Batch.broadcast(ndd.tensor(np.array(self.patch_size), dtype=types.FLOAT), self.batch_size)
        self._readers = {**self._readers, "ReaderX": self.input_x}

    @Prefetch(depth=2)
    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            while True:
                for (img,) in self.input_x.next_epoch(batch_size=self.batch_size):
                    img = ndd.reshape(img, shape=[4, 5, 1], layout="HWC")
                    img = self.crop(img)
                    yield self.scaled(img, 2.0), self.crop_shape, self.crop_shape_float * 0.5
