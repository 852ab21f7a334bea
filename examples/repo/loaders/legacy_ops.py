"""Style 4: legacy ops.* objects created in __init__ and called in define_graph."""

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class LegacyOpsPipe(Pipeline):
    def __init__(self, root, batch_size=4, num_threads=2, device_id=None):
        super().__init__(batch_size, num_threads, device_id, seed=11)
        self.input = ops.readers.File(file_root=root, random_shuffle=False)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.resize = ops.Resize(resize_x=20, resize_y=20)
        self.cast = ops.Cast(dtype=types.FLOAT)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        images = self.resize(self.decode(jpegs))
        return self.cast(images), labels
