"""Pipeline subclasses fed from Python: iter_setup() computes each step's data and feed_input() hands it to
an ops.ExternalSource that define_graph read into self.<name>. One class feeds the encoded JPEG files (a list of
byte arrays) to a decoder, one feeds a numpy batch (an array whose first dimension is the batch) with a
layout. The classes are listed and handed to a function that builds and runs them (as a benchmark does)."""

import os
import sys

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


def list_files(folder, suffix):
    found = []
    for root, _, names in os.walk(folder):
        found += [os.path.join(root, name) for name in names if name.endswith(suffix)]
    return sorted(found)


class JpegPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, folder):
        super(JpegPipe, self).__init__(batch_size, num_threads, device_id)
        self.files = list_files(folder, ".jpg")
        self.position = 0
        self.input = ops.ExternalSource()
        self.decode = ops.decoders.Image(device="mixed", output_type=types.RGB)
        self.resize = ops.Resize(device="gpu", resize_x=10, resize_y=8)

    def define_graph(self):
        self.jpegs = self.input()
        images = self.decode(self.jpegs)
        return self.resize(images)

    def iter_setup(self):
        batch = []
        for _ in range(self.batch_size):
            with open(self.files[self.position % len(self.files)], "rb") as f:
                batch.append(np.frombuffer(f.read(), dtype=np.uint8))
            self.position += 1
        self.feed_input(self.jpegs, batch)


class ArrayPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, folder):
        super(ArrayPipe, self).__init__(batch_size, num_threads, device_id, exec_async=False, exec_pipelined=False)
        self.arrays = [np.load(path) for path in list_files(folder, ".npy")]
        self.step = 0
        self.data = ops.ExternalSource(dtype=types.FLOAT)
        self.flip = ops.Flip(horizontal=1)

    def define_graph(self):
        self.values = self.data()
        return self.flip(self.values * 2.0), self.values

    def iter_setup(self):
        picked = [self.arrays[(self.step + i) % len(self.arrays)] for i in range(self.batch_size)]
        self.step += 1
        self.feed_input(self.values, np.stack(picked)[..., None] + self.step, layout="HWC")


def run_pipe(PipeType, folder, steps):
    pipe = PipeType(3, 2, device_id=0, folder=folder)
    pipe.build()
    for step in range(steps):
        outputs = pipe.run()
        for index, output in enumerate(outputs):
            array = output.as_cpu().as_array()
            print(PipeType.__name__, step, index, array.shape, round(float(array.mean()), 4),
                  round(float(array[0].ravel()[0]), 4), output.layout())


if __name__ == "__main__":
    run_pipe(JpegPipe, sys.argv[1], 5)
    run_pipe(ArrayPipe, sys.argv[2], 4)
