"""A Pipeline subclass with methods of its own beside define_graph, called by the program on the pipeline:
steps_per_epoch() (of its shard), a helper over reader_meta, one over epoch_size with its argument. (Not __len__:
DALI takes the truth of the pipeline while it builds the graph, which would call it before the reader exists.)"""
import sys

import numpy as np
from nvidia.dali import Pipeline, fn, ops, types


class Sharded(Pipeline):
    def __init__(self, batch_size, root, shard_id, num_shards):
        super().__init__(batch_size, 2, None)
        self.shard_id, self.num_shards = shard_id, num_shards
        self.input = ops.readers.File(file_root=root, shard_id=shard_id, num_shards=num_shards, pad_last_batch=True)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.GRAY)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return fn.reductions.mean(self.decode(jpegs)), labels

    def steps_per_epoch(self):
        meta = self.reader_meta("Reader")
        shard = meta["epoch_size_padded"] // meta["number_of_shards"]
        return -(-shard // self.batch_size)

    def describe(self):
        meta = self.reader_meta("Reader")
        return f"shard {meta['shard_id']} of {meta['number_of_shards']}, padded {meta['pad_last_batch']}"

    def samples(self, name="Reader"):
        return self.epoch_size(name)


if __name__ == "__main__":
    for shard_id in range(3):
        pipe = Sharded(2, sys.argv[1], shard_id, 3)
        pipe.build()
        print(pipe.describe(), "samples", pipe.samples(), "steps", pipe.steps_per_epoch())
        for step in range(pipe.steps_per_epoch()):
            means, labels = pipe.run()
            print(step, [round(float(np.mean(means.at(i))), 3) for i in range(len(means))],
                  labels.as_array().ravel().tolist())
