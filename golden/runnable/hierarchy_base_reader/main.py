"""A Pipeline base class creates the readers in its __init__ (an ops.readers.Numpy object, and one through a
get_reader() helper method of its own, with shard arguments), and a subclass's define_graph reads them by
name; another subclass creates its reader in __init__ under a plain Python `if self.train:` (shuffled after
each epoch, or not). Epoch sizes by reader name, two epochs of steps per pipeline, one per shard."""

import argparse
import glob
import os

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class BasePipeline(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, files, shard_id=0, num_shards=1):
        super().__init__(batch_size, num_threads, device_id, seed=7)
        self.files = files
        self.shard_id, self.num_shards = shard_id, num_shards
        self.input = ops.readers.Numpy(files=files, shard_id=shard_id, num_shards=num_shards, pad_last_batch=True)
        self.reversed_files = sorted(files, reverse=True)
        self.scale_in = self.get_reader(self.reversed_files)
        self.flat = ops.Reshape(shape=[20])

    def get_reader(self, data):
        return ops.readers.Numpy(files=data, shard_id=self.shard_id, num_shards=self.num_shards)

    def finish(self, data):
        data = fn.cast(data, dtype=types.FLOAT)
        return self.flat(data), fn.reductions.sum(data)


class PairPipeline(BasePipeline):
    def define_graph(self):
        data = self.input(name="Reader")
        scale = self.scale_in(name="Scale")
        normed, total = self.finish(data * 2)
        return normed, total, fn.reductions.max(scale)


class TrainPipeline(BasePipeline):
    def __init__(self, batch_size, num_threads, device_id, files, train, shard_id=0, num_shards=1):
        super().__init__(batch_size, num_threads, device_id, files, shard_id=shard_id, num_shards=num_shards)
        self.train = train
        if self.train:
            self.input = ops.readers.Numpy(files=files, shuffle_after_epoch=True, shard_id=shard_id,
                                           num_shards=num_shards)
        else:
            self.input = ops.readers.Numpy(files=files, shard_id=shard_id, num_shards=num_shards)

    def define_graph(self):
        data = self.input(name="Reader")
        return self.finish(data)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("numpy")
    args = parser.parse_args()
    files = sorted(glob.glob(os.path.join(args.numpy, "*.npy")))
    for shard in range(2):
        pipe = PairPipeline(3, 2, device_id=0, files=files, shard_id=shard, num_shards=2)
        pipe.build()
        samples = pipe.epoch_size("Reader")
        print("pair shard", shard, "samples", samples, "scale samples", pipe.epoch_size("Scale"))
        for epoch in range(2):
            for i in range(samples // 3):
                normed, total, top = pipe.run()
                print(epoch, i, normed.as_array().shape, round(float(normed.as_array().sum()), 3), total.as_array().ravel().tolist(),
                      top.as_array().ravel().tolist())
    for train in (False, True):
        pipe = TrainPipeline(3, 2, device_id=0, files=files, train=train)
        pipe.build()
        samples = pipe.epoch_size("Reader")
        print("train", train, "samples", samples)
        for epoch in range(2):
            totals = []
            for i in range(samples // 3):
                normed, total = pipe.run()
                totals += total.as_array().ravel().tolist()
            # the shuffled order is the seed's: each epoch's samples, in order
            print(epoch, sorted(totals))


if __name__ == "__main__":
    main()
