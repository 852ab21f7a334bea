"""Legacy ops.Compose chains in a Pipeline subclass: a CPU op then a GPU one (Compose moved the data to the GPU
between them), a random op without a seed of its own, a Compose inside a Compose, and a one-op chain."""

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class TrainPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir, crop):
        super().__init__(batch_size, num_threads, device_id, seed=12)
        self.input = ops.readers.File(file_root=data_dir, random_shuffle=True)
        self.decode = ops.decoders.Image(device="mixed", output_type=types.RGB)
        self.cpu_decode = ops.decoders.Image(device="cpu")
        self.aug = ops.Compose([
            ops.RandomResizedCrop(device="gpu", size=crop),
            ops.CropMirrorNormalize(device="gpu", dtype=types.FLOAT, output_layout="CHW",
                                    mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                    std=[0.229 * 255, 0.224 * 255, 0.225 * 255]),
        ])
        self.to_gpu = ops.Compose([ops.Resize(resize_shorter=crop), ops.Compose([ops.Flip(device="gpu", horizontal=1)])])
        self.gray = ops.Compose([ops.ColorSpaceConversion(image_type=types.RGB, output_type=types.GRAY)])

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        images = self.decode(jpegs)
        return self.aug(images), self.to_gpu(self.cpu_decode(jpegs)), self.gray(images), labels


def steps(data_dir, n):
    pipe = TrainPipe(32, 4, 0, data_dir, 224)
    pipe.build()
    return [pipe.run() for _ in range(n)]
