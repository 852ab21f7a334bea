"""A loader class, as HPC benchmarks write them: a sharded source class over .npy files whose __iter__ moves to
the next shuffled chunk and whose __next__ raises StopIteration at the chunk's end (dropping or cutting the last
batch), a method that fills Pipeline() in `with pipeline:` with external_source(cycle="raise"), and a
DALIGenericIterator with auto_reset and no size, iterated by the loader's __iter__ over 3 epochs."""

import glob
import os
import sys

import numpy as np
from nvidia.dali import fn, types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


class ArrayShardSource:
    def __init__(self, files, batch_size, last_batch="drop", shard_id=0, num_shards=1, chunks=2, seed=5):
        self.batch_size = batch_size
        self.last_batch = last_batch
        rng = np.random.default_rng(seed)
        mine = files[shard_id::num_shards]
        self.chunks = [[mine[i] for i in rng.permutation(len(mine))] for _ in range(chunks)]
        self.chunk = -1
        self.cache = {}

    def __iter__(self):
        self.chunk = (self.chunk + 1) % len(self.chunks)
        self.current = self.chunks[self.chunk]
        self.position = 0
        return self

    def load(self, path):
        if path not in self.cache:
            self.cache[path] = np.load(path)
        return self.cache[path]

    def __next__(self):
        left = len(self.current) - self.position
        if left <= 0 or (left < self.batch_size and self.last_batch == "drop"):
            raise StopIteration
        data, labels = [], []
        for path in self.current[self.position:self.position + min(left, self.batch_size)]:
            array = self.load(path)
            data.append(array)
            labels.append(np.array([int(os.path.basename(path)[4:7])], dtype=np.int32))
        self.position += len(data)
        return data, labels


class ArrayLoader:
    def build_pipeline(self):
        pipeline = Pipeline(batch_size=self.batch_size, num_threads=self.num_threads, device_id=self.device_id,
                            seed=self.seed)
        with pipeline:
            data, label = fn.external_source(source=self.source, num_outputs=2, cycle="raise", no_copy=False,
                                             parallel=False)
            data = data.gpu()
            data = fn.normalize(data, device="gpu", mean=self.mean, stddev=self.stddev, scale=1.0)
            label = fn.cast(label.gpu(), device="gpu", dtype=types.DALIDataType.INT64)
            if self.transpose:
                data = fn.transpose(data, device="gpu", perm=[1, 0])
            pipeline.set_outputs(data, label)
        return pipeline

    def __init__(self, root, batch_size, validation=False, transpose=True, device_id=0, seed=11):
        self.batch_size = batch_size
        self.num_threads = 2
        self.device_id = device_id
        self.seed = seed
        self.transpose = transpose
        files = sorted(glob.glob(os.path.join(root, "*.npy")))
        stacked = np.stack([np.load(f) for f in files])
        self.mean = stacked.mean(axis=0).astype(np.float32)
        self.stddev = (stacked.max(axis=0) - stacked.min(axis=0) + 1).astype(np.float32)
        self.source = ArrayShardSource(files, batch_size, last_batch="partial" if validation else "drop")
        self.pipeline = None
        self.pipeline = self.build_pipeline()
        self.pipeline.build()
        self.iterator = DALIGenericIterator([self.pipeline], ["data", "label"], auto_reset=True, size=-1,
                                            last_batch_policy=LastBatchPolicy.PARTIAL if validation
                                            else LastBatchPolicy.DROP,
                                            prepare_first_batch=False)
        self.readers = self.pipeline.epoch_size()

    def __iter__(self):
        for batch in self.iterator:
            yield batch[0]["data"], batch[0]["label"]


if __name__ == "__main__":
    for validation in (False, True):
        loader = ArrayLoader(sys.argv[1], 4, validation=validation)
        print("validation" if validation else "training", "readers:", loader.readers)
        for epoch in range(3):
            shapes, labels, sums = [], [], []
            for data, label in loader:
                shapes.append(tuple(data.shape))
                labels += label.view(-1).tolist()
                sums.append(round(float((data * data).sum()), 3))
            print(f"  epoch {epoch}: shapes {shapes} labels {labels} sums {sums}")
