"""A base Pipeline class with a helper named like define_graph (base_define_graph) that finishes the graph, and
two subclasses whose define_graph each read their own data and call it: one through self, one through an override
that calls super().base_define_graph and shifts the labels. Each pipeline runs over two epochs."""

import argparse

import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class CommonPipeline(Pipeline):
    def __init__(self, root, size, batch_size, num_threads, device_id):
        super().__init__(batch_size, num_threads, device_id)
        self.root = root
        self.decode = ops.decoders.Image(device="mixed", output_type=types.RGB)
        self.res = ops.Resize(device="gpu", resize_x=size, resize_y=size)

    def base_define_graph(self, jpegs, labels):
        images = self.res(self.decode(jpegs))
        return images, labels


class FilePipeline(CommonPipeline):
    def define_graph(self):
        jpegs, labels = fn.readers.file(file_root=self.root, name="Reader")
        return self.base_define_graph(jpegs, labels)


class ShiftedPipeline(CommonPipeline):
    def __init__(self, shift, **kwargs):
        super().__init__(**kwargs)
        self.shift = shift
        self.input = ops.readers.File(file_root=self.root, random_shuffle=True, seed=5)

    def base_define_graph(self, jpegs, labels):
        images, labels = super().base_define_graph(jpegs, labels)
        return fn.flip(images, horizontal=1), labels + self.shift

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return self.base_define_graph(jpegs, labels)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("images")
    args = parser.parse_args()
    pipes = [("files", FilePipeline(args.images, 10, batch_size=4, num_threads=2, device_id=0)),
             ("shifted", ShiftedPipeline(100, root=args.images, size=8, batch_size=3, num_threads=2, device_id=0))]
    for name, pipe in pipes:
        pipe.build()
        steps = -(-pipe.epoch_size("Reader") // pipe.max_batch_size)
        print(name, "steps per epoch", steps)
        for epoch in range(2):
            for step in range(steps):
                images, labels = pipe.run()
                images = images.as_cpu().as_array()
                print(epoch, step, images.shape, round(float(images.mean()), 4), labels.as_array().ravel().tolist())


if __name__ == "__main__":
    main()
