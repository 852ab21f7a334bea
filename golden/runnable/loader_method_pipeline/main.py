"""A loader class whose method fills a Pipeline() in a `with` block (two numpy readers, each copied to the
GPU with .gpu() chained on the reader), keeps it in self.pipeline, builds it in another method, reads it
through DALIGenericIterator(reader_name=) and asks epoch_size() of all its readers."""

import argparse

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


class ArrayLoader:
    def make_pipeline(self, files, num_shards, shard_id):
        pipeline = Pipeline(batch_size=self.batch_size, num_threads=self.num_threads, device_id=self.device_id,
                            seed=self.seed)
        with pipeline:
            data = fn.readers.numpy(name="data", device="cpu", file_root=self.root, files=files,
                                    num_shards=num_shards, shard_id=shard_id, pad_last_batch=True,
                                    shuffle_after_epoch=self.shuffle, bytes_per_sample_hint=80, seed=self.seed).gpu()
            label = fn.readers.numpy(name="label", device="cpu", file_root=self.root, files=files,
                                     num_shards=num_shards, shard_id=shard_id, pad_last_batch=True,
                                     shuffle_after_epoch=self.shuffle, seed=self.seed).gpu()
            # scale the data, labels become integers
            data = fn.normalize(data, device="gpu", mean=self.mean, stddev=self.stddev, scale=1.0)
            label = fn.cast(label, device="gpu", dtype=types.DALIDataType.INT64)
            if self.transpose:
                data = fn.transpose(data, device="gpu", perm=[1, 0])
            pipeline.set_outputs(data, label)
        return pipeline

    def setup(self, root, files, num_shards, shard_id):
        self.root = root
        self.mean = np.full((1, 5), 2.0, dtype=np.float32)
        self.stddev = np.full((1, 5), 4.0, dtype=np.float32)
        if self.iterator is not None:
            del self.iterator
            self.iterator = None
        if self.pipeline is not None:
            del self.pipeline
            self.pipeline = None
        self.pipeline = self.make_pipeline(files, num_shards, shard_id)
        self.pipeline.build()

    def __init__(self, root, files, batch_size, validation, num_shards=1, shard_id=0, shuffle=False, seed=7):
        self.batch_size = batch_size
        self.num_threads = 2
        self.device_id = 0
        self.seed = seed
        self.shuffle = shuffle
        self.transpose = True
        self.pipeline = None
        self.iterator = None
        self.setup(root, files, num_shards, shard_id)
        self.iterator = DALIGenericIterator([self.pipeline], ["data", "label"], auto_reset=True, reader_name="data",
                                            last_batch_policy=LastBatchPolicy.PARTIAL if validation
                                            else LastBatchPolicy.DROP, prepare_first_batch=False)
        self.epoch_size = self.pipeline.epoch_size()

    def __iter__(self):
        for token in self.iterator:
            yield token[0]["data"], token[0]["label"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()
    files = [f"arr_{i:03d}.npy" for i in range(5)]
    for validation, shards in ((False, (1, 0)), (True, (2, 1))):
        loader = ArrayLoader(args.root, files, 2, validation, num_shards=shards[0], shard_id=shards[1])
        print("validation" if validation else "training", "epoch sizes", sorted(loader.epoch_size.items()))
        for epoch in range(args.epochs):
            for data, label in loader:
                print(epoch, tuple(data.shape), data.dtype, round(float(data.sum()), 4), label.dtype,
                      label.sum(dim=(1, 2)).tolist())


if __name__ == "__main__":
    main()
