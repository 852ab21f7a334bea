"""A Pipeline subclass with legacy ops.* objects and two random ops."""

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class RotateFlipPipe(Pipeline):
    def __init__(self, root, batch_size=4, num_threads=2, device_id=None, seed=11):
        super().__init__(batch_size, num_threads, device_id, seed=seed)
        self.reader = ops.readers.File(file_root=root, random_shuffle=True, seed=3)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.angle = ops.random.Uniform(range=(-30.0, 30.0))
        self.rotate = ops.Rotate(fill_value=0, size=(32, 32))
        self.coin = ops.random.CoinFlip(probability=0.5)
        self.flip = ops.Flip()

    def define_graph(self):
        jpegs, labels = self.reader()
        images = self.decode(jpegs)
        images = self.rotate(images, angle=self.angle())
        flags = self.coin()
        images = self.flip(images, horizontal=flags)
        return images, labels, flags
