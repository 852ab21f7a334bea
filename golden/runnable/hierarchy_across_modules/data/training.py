import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types

from .pipeline import GenericPipeline


class TrainPipeline(GenericPipeline):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.crop_shape = types.Constant(np.array(self.patch_size), dtype=types.INT64)
        self.crop_shape_float = types.Constant(np.array(self.patch_size), dtype=types.FLOAT)

    def define_graph(self):
        img = self.input_x(name="ReaderX")
        img = fn.reshape(img, shape=[4, 5, 1], layout="HWC")
        img = self.crop(img)
        return self.scaled(img, 2.0), self.crop_shape, self.crop_shape_float * 0.5
