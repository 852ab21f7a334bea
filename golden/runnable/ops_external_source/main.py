"""A training script's data module in legacy ops style: Pipeline subclasses fed by ops.ExternalSource objects
given source= (an endless batch iterator over an in-memory dataset, a per-sample callable), each built by its
own __init__, read with run() and through DALIClassificationIterator for two epochs."""
import sys

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy


class InMemoryBatches:
    """Endless batches over a small dataset of arrays, wrapping at its end, as an MNIST wrapper does."""

    def __init__(self, arrays, batch_size):
        self.arrays, self.batch_size = arrays, batch_size
        self.order = list(range(len(arrays)))
        np.random.default_rng(3).shuffle(self.order)

    def __iter__(self):
        self.i = 0
        return self

    def __next__(self):
        images, labels = [], []
        for _ in range(self.batch_size):
            index = self.order[self.i]
            images.append(self.arrays[index])
            labels.append(np.array([index % 3], dtype=np.int32))
            self.i = (self.i + 1) % len(self.arrays)
        return images, labels


class Squares:
    """One sample per call: the sample's index in the epoch, squared, as a 2x2 array."""

    def __call__(self, sample_info):
        value = float(sample_info.idx_in_epoch ** 2)
        return np.full((2, 2), value, dtype=np.float32)


class BatchPipeline(Pipeline):
    def __init__(self, batch_size, batches, num_threads, device_id):
        super().__init__(batch_size, num_threads, device_id, seed=12)
        self.source = ops.ExternalSource(source=batches, num_outputs=2)
        self.normalize = ops.Normalize(mean=0.5, stddev=2.0)
        self.build()

    def define_graph(self):
        images, labels = self.source()
        return self.normalize(images), labels


class SamplePipeline(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super().__init__(batch_size=batch_size, num_threads=num_threads, device_id=device_id)
        self.squares = ops.ExternalSource(source=Squares(), batch=False, dtype=types.FLOAT)
        self.build()

    def define_graph(self):
        values = self.squares()
        return values * 2


def main(folder):
    arrays = [np.load(f"{folder}/{name}") for name in sorted(__import__("os").listdir(folder))]
    pipe = BatchPipeline(4, InMemoryBatches(arrays, 4), 2, None)
    for step in range(3):
        images, labels = pipe.run()
        stacked = images.as_array()
        print("run", step, stacked.shape, stacked.dtype, round(float(stacked.sum()), 3), labels.as_array().ravel().tolist())

    loader = DALIClassificationIterator(BatchPipeline(4, InMemoryBatches(arrays, 4), 2, None), size=10,
                                        last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True)
    for epoch in range(2):
        for data in loader:
            print("epoch", epoch, tuple(data[0]["data"].shape), round(float(data[0]["data"].sum()), 3),
                  data[0]["label"].ravel().tolist())

    squares = SamplePipeline(3, 1, None)
    for step in range(3):
        (values,) = squares.run()
        print("squares", step, [float(values.at(i)[0, 0]) for i in range(len(values))])


if __name__ == "__main__":
    main(sys.argv[1])
