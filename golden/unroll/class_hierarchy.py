"""A base Pipeline class with shared ops and a helper, a subclass with its own reader and define_graph, and a
subclass with only define_graph (an fn reader): each becomes a ReaderStream that answers its metadata."""

import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class Base(Pipeline):
    def __init__(self, root, batch_size, num_threads=2, device_id=None):
        super().__init__(batch_size, num_threads, device_id, seed=5)
        self.root = root
        self.decode = ops.decoders.Image(device="mixed", output_type=types.RGB)
        self.coin = ops.random.CoinFlip(probability=0.5)

    def finish(self, jpegs, labels):
        images = self.decode(jpegs)
        return fn.flip(images, horizontal=self.coin()), labels


class Files(Base):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.input = ops.readers.File(file_root=self.root)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return self.finish(jpegs, labels)


class Shuffled(Base):
    def define_graph(self):
        jpegs, labels = fn.readers.file(file_root=self.root, random_shuffle=True, seed=1, name="Reader")
        return self.finish(jpegs, labels)


def first_steps(root):
    pipes = [cls(root=root, batch_size=2) for cls in (Files, Shuffled)]
    for pipe in pipes:
        pipe.build()
    sizes = [pipe.epoch_size("Reader") for pipe in pipes]
    return sizes, [pipe.run() for pipe in pipes]
