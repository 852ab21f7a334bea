"""A base Pipeline class builds the shared ops in __init__ and a helper that finishes the graph; each subclass
adds its own reader in __init__ (super().__init__(**kwargs)) and a define_graph that calls the helper, or only a
define_graph with an fn reader. The
classes come in (class, data sets) pairs, several pipelines of one class are built in a list, the steps per
epoch come from pipes[0].epoch_size("Reader") and every pipeline is run in turn."""

import argparse
import os

import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class CommonPipeline(Pipeline):
    def __init__(self, data_paths, batch_size, num_threads, device_id, shard_id, num_shards, size, prefetch=2):
        super(CommonPipeline, self).__init__(batch_size, num_threads, device_id, prefetch_queue_depth=prefetch)
        self.data_paths, self.shard_id, self.num_shards = data_paths, shard_id, num_shards
        self.decode = ops.decoders.Image(device="mixed", output_type=types.RGB)
        self.res = ops.Resize(device="gpu", resize_x=size, resize_y=size)
        self.cmnp = ops.CropMirrorNormalize(device="gpu", dtype=types.FLOAT, output_layout=types.NCHW,
                                            crop=(size - 2, size - 2), mean=[128.0, 128.0, 128.0],
                                            std=[64.0, 64.0, 64.0])

    def finish_graph(self, inputs, labels):
        images = self.decode(inputs)
        images = self.res(images)
        output = self.cmnp(images.gpu())
        return (output, labels)


class FileReadPipeline(CommonPipeline):
    def __init__(self, **kwargs):
        super(FileReadPipeline, self).__init__(**kwargs)
        self.input = ops.readers.File(file_root=kwargs["data_paths"][0], shard_id=kwargs["shard_id"],
                                      num_shards=kwargs["num_shards"])

    def define_graph(self):
        images, labels = self.input(name="Reader")
        return self.finish_graph(images, labels)


class FileListPipeline(CommonPipeline):
    def __init__(self, **kwargs):
        super(FileListPipeline, self).__init__(**kwargs)
        self.input = ops.readers.File(file_root=kwargs["data_paths"][0], file_list=kwargs["data_paths"][1],
                                      shard_id=kwargs["shard_id"], num_shards=kwargs["num_shards"])

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return self.finish_graph(jpegs, labels + 10)


class ShuffledPipeline(CommonPipeline):
    def define_graph(self):
        jpegs, labels = fn.readers.file(file_root=self.data_paths[0], random_shuffle=True, seed=3, name="Reader",
                                        shard_id=self.shard_id, num_shards=self.num_shards)
        return self.finish_graph(jpegs, labels)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("images")
    parser.add_argument("filelist")
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--batch", type=int, default=3)
    args = parser.parse_args()
    test_data = [(FileReadPipeline, [[args.images]]), (FileListPipeline, [[args.images, args.filelist]]),
                 (ShuffledPipeline, [[args.images]])]
    for pipe_name, data_sets in test_data:
        for data_set in data_sets:
            pipes = [pipe_name(batch_size=args.batch, num_threads=2, device_id=0, num_shards=args.shards,
                               data_paths=data_set, shard_id=n, size=12) for n in range(args.shards)]
            [pipe.build() for pipe in pipes]
            samples = pipes[0].epoch_size("Reader")
            assert all(pipe.epoch_size("Reader") == samples for pipe in pipes)
            iters = -(-samples // (args.batch * args.shards))
            print(pipe_name.__name__, os.path.basename(data_set[-1]), "samples", samples, "iterations", iters)
            for epoch in range(2):
                for i in range(iters):
                    for n, pipe in enumerate(pipes):
                        images, labels = pipe.run()
                        images = images.as_cpu().as_array()
                        print(epoch, i, n, images.shape, round(float(images.mean()), 4),
                              labels.as_array().ravel().tolist())


if __name__ == "__main__":
    main()
