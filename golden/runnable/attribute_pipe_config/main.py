"""Data classes that are not Pipelines and keep one as an attribute: __init__ makes it from a config object's fields
(batch size, worker threads, a seed computed from the config's, the prefetch depth), another method fills it in
`with self.pipe:`, and further methods run it several times per epoch and reset it between epochs. A second class
makes its Pipeline from literal options and is filled by a method its caller calls after construction; a third one
feeds its Pipeline from a Python iterator whose epochs end with StopIteration, so its reset() starts the next epoch."""

import argparse
from dataclasses import dataclass

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


@dataclass
class LoaderConfig:
    batch_size: int = 3
    workers: int = 2
    seed: int = 11
    size: int = 8
    prefetch: int = 2


class TrainData:
    def __init__(self, root, config):
        self.config = config
        self.root = root
        self.pipe = Pipeline(batch_size=config.batch_size, num_threads=config.workers, device_id=None,
                             seed=config.seed + 1, prefetch_queue_depth=config.prefetch)
        self.steps_done = 0
        self.make_graph()

    def make_graph(self):
        with self.pipe:
            jpegs, labels = fn.readers.file(file_root=self.root, name="Reader")
            images = fn.decoders.image(jpegs, device="cpu")
            images = fn.resize(images, resize_x=self.config.size, resize_y=self.config.size)
            mirror = fn.random.coin_flip(probability=0.5)
            images = fn.crop_mirror_normalize(images, mirror=mirror, dtype=types.FLOAT, output_layout="CHW",
                                              mean=[128.0] * 3, std=[64.0] * 3)
            self.pipe.set_outputs(images, labels, mirror)

    def steps_per_epoch(self):
        return self.pipe.epoch_size("Reader") // self.config.batch_size

    def epoch(self):
        rows = []
        for _ in range(self.steps_per_epoch()):
            images, labels, mirror = self.pipe.run()
            self.steps_done += 1
            array = np.array(images.as_tensor())
            # (the sums do not depend on the mirror flags: random values differ between the modes for one seed)
            rows.append((array.shape, round(float(array.sum()), 2), labels.as_array().ravel().tolist(), len(mirror)))
        self.pipe.reset()
        return rows


class EvalData:
    def __init__(self, root):
        self.root = root
        self._eval_pipe = Pipeline(batch_size=4, num_threads=1, device_id=None)

    def define(self):
        with self._eval_pipe:
            jpegs, labels = fn.readers.file(file_root=self.root, name="Reader")
            images = fn.decoders.image(jpegs, device="cpu", output_type=types.GRAY)
            self._eval_pipe.set_outputs(fn.resize(images, resize_x=4, resize_y=4), labels)

    def batches(self, count):
        for _ in range(count):
            images, labels = self._eval_pipe.run()
            yield [np.array(images.at(i)).sum() for i in range(len(images))], labels.as_array().ravel().tolist()


class Chunks:
    """Batches of arrays, an epoch of `count` of them; each epoch starts again from the first."""

    def __init__(self, count, batch_size):
        self.count, self.batch_size = count, batch_size

    def __iter__(self):
        self.i = 0
        return self

    def __next__(self):
        if self.i >= self.count:
            raise StopIteration
        self.i += 1
        return [np.full((2, 3), self.i * 10 + k, dtype=np.float32) for k in range(self.batch_size)]


class FedData:
    def __init__(self, config, chunks):
        self.chunks = Chunks(chunks, config.batch_size)
        self.feed_pipe = Pipeline(batch_size=config.batch_size, num_threads=1, device_id=None,
                                  prefetch_queue_depth=config.prefetch)
        self.setup()

    def setup(self):
        with self.feed_pipe:
            data = fn.external_source(source=self.chunks, cycle="raise")
            self.feed_pipe.set_outputs(fn.reductions.sum(data, axes=1), data * 2)

    def epoch(self):
        sums = []
        while True:
            try:
                sums_out, doubled = self.feed_pipe.run()
            except StopIteration:
                break
            sums.append((sums_out.as_array().tolist(), float(np.array(doubled.as_tensor()).sum())))
        self.feed_pipe.reset()
        return sums


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    args = parser.parse_args()
    train = TrainData(args.data, LoaderConfig())
    print("steps per epoch", train.steps_per_epoch())
    for epoch in range(2):
        for row in train.epoch():
            print("epoch", epoch, *row)
    print("steps done", train.steps_done)
    evaluation = EvalData(args.data)
    evaluation.define()
    for sums, labels in evaluation.batches(3):
        print("eval", [int(s) for s in sums], labels)
    fed = FedData(LoaderConfig(batch_size=2), chunks=3)
    for epoch in range(3):
        print("fed epoch", epoch, fed.epoch())
