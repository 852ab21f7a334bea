"""A Pipeline subclass keeps plain attributes its own methods set (a user data object, a number, a path, a user
iterator held for iter_setup): code outside the class reads them (a loader class given the pipeline, a function,
len() of one, a method call on one, DALIGenericIterator's size= from one), and the migrated class keeps them with
the same values, so the pipeline migrates."""
import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator


class Samples:
    def __init__(self, count):
        self.count = count
        self.size = count

    def __len__(self):
        return self.count

    def __iter__(self):
        self.i = 0
        return self

    def __next__(self):
        self.i += 1
        return [np.full((2,), self.i, dtype=np.uint8)]

    def describe(self):
        return f"{self.count} samples"


class ReaderPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir, classes=10):
        super().__init__(batch_size, num_threads, device_id, seed=3)
        self.data_dir = data_dir
        self.dataset = Samples(12)
        self.num_classes = classes
        self.input = ops.readers.File(file_root=data_dir, random_shuffle=False)
        self.decode = ops.decoders.Image(device="cpu")

    def define_graph(self):
        self.jpegs, self.labels = self.input(name="Reader")
        return self.decode(self.jpegs), self.labels


class SourcePipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super().__init__(batch_size, num_threads, device_id)
        self.iterator = iter(Samples(8))
        self.source = ops.ExternalSource()

    def define_graph(self):
        self.data = self.source()
        return self.data

    def iter_setup(self):
        self.feed_input(self.data, next(self.iterator))


class Loader:
    def __init__(self, pipeline):
        self.classes = pipeline.num_classes
        self.loader = DALIGenericIterator([pipeline], ["images", "labels"], size=len(pipeline.dataset))

    def __iter__(self):
        return iter(self.loader)


def describe(pipe):
    return pipe.dataset.describe(), pipe.data_dir


if __name__ == "__main__":
    pipe = ReaderPipe(4, 2, 0, "images")
    pipe.build()
    print(describe(pipe))
    for batch in Loader(pipe):
        print(batch[0]["labels"].ravel().tolist())
    source = SourcePipe(2, 1, 0)
    for batch in DALIGenericIterator(source, ["data"], size=source.iterator.size):
        print(batch[0]["data"].sum())
