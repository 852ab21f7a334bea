"""A Pipeline subclass built from legacy ops objects, some with names removed from modern DALI."""

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class HybridValPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir, crop):
        super(HybridValPipe, self).__init__(batch_size, num_threads, device_id, seed=12)
        self.input = ops.FileReader(file_root=data_dir, random_shuffle=False)
        self.decode = ops.nvJPEGDecoder(device="mixed", output_type=types.RGB)
        self.res = ops.Resize(device="gpu", resize_shorter=crop + 8)
        self.cmnp = ops.CropMirrorNormalize(device="gpu", output_dtype=types.FLOAT,
                                            output_layout=types.NCHW, crop=(crop, crop),
                                            image_type=types.RGB, mean=[0.0, 0.0, 0.0],
                                            std=[255.0, 255.0, 255.0])
        self.coin = ops.CoinFlip(probability=0.5)

    def define_graph(self):
        rng = self.coin()
        self.jpegs, self.labels = self.input(name="Reader")
        images = self.decode(self.jpegs)
        images = self.res(images)
        output = self.cmnp(images.gpu())
        return [output, self.labels, rng]


def collect(data_dir, steps):
    pipe = HybridValPipe(batch_size=4, num_threads=2, device_id=0, data_dir=data_dir, crop=24)
    pipe.build()
    return [pipe.run() for _ in range(steps)]
