"""The legacy ops API: operator objects made in __init__ and called in define_graph; a factory returns it."""

import sys

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class HybridPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, file_root):
        super(HybridPipe, self).__init__(batch_size, num_threads, device_id)
        self.input = ops.readers.File(file_root=file_root, random_shuffle=False)
        self.decode = ops.decoders.Image(device="mixed", output_type=types.RGB)
        self.resize = ops.Resize(device="gpu", resize_x=20, resize_y=14)
        self.cast = ops.Cast(device="gpu", dtype=types.INT32)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        images = self.decode(jpegs)
        return self.cast(self.resize(images)), labels


def build_pipeline(file_root, batch_size):
    pipe = HybridPipe(batch_size=batch_size, num_threads=2, device_id=0, file_root=file_root)
    pipe.build()
    return pipe


if __name__ == "__main__":
    pipe = build_pipeline(sys.argv[1], 4)
    for it in range(3):
        images, labels = pipe.run()
        images = images.as_cpu()
        batch = images.as_array()
        print(f"iteration {it}: {batch.shape} {batch.dtype} sum {int(batch.sum())} "
              f"labels {labels.as_array().ravel().tolist()}")
