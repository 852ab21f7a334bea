"""A Pipeline subclass keeps plain attributes its own methods set (a user data object, a number, a path, a user
iterator held for iter_setup): code outside the class reads them (a loader class given the pipeline, a function,
len() of one, a method call on one, DALIGenericIterator's size= from one), and the migrated class keeps them with
the same values, so the pipeline migrates."""
import numpy as np
import contextlib
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import EpochIterator, Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


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


class ReaderPipe(ReaderStream):
    def __init__(self, batch_size, num_threads, device_id, data_dir, classes=10):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = 3
        self.data_dir = data_dir
        self.dataset = Samples(12)
        self.num_classes = classes
        self.input = ndd.readers.File(file_root=data_dir, random_shuffle=False, name="Reader", max_batch_size=self.batch_size)
        self._readers = {"Reader": self.input}

    @Prefetch(depth=2)
    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            while True:
                for jpegs, labels in self.input.next_epoch(batch_size=self.batch_size):
                    yield ndd.decoders.image(jpegs, device="cpu"), labels


class SourcePipe(ReaderStream):
    def __init__(self, batch_size, num_threads, device_id):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = None
        self.iterator = iter(Samples(8))

    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            while True:
                try:
                    self.iter_setup()
                except StopIteration:
                    return  # iter_setup() ended the epoch: pipe.run() raised StopIteration until pipe.reset()
                yield (self.data,)

    def iter_setup(self):
        self.data = ndd.as_batch(next(self.iterator))

    def _restart(self, epoch):
        """pipe.reset() after iter_setup() ended an epoch: the next epoch's steps."""
        return self.steps()


class Loader:
    def __init__(self, pipeline):
        self.classes = pipeline.num_classes
        self.loader = EpochIterator([pipeline], ["images", "labels"], size=len(pipeline.dataset))

    def __iter__(self):
        return iter(self.loader)


def describe(pipe):
    return pipe.dataset.describe(), pipe.data_dir


if __name__ == "__main__":
    pipe = ReaderPipe(4, 2, 0, "images")
    print(describe(pipe))
    for batch in Loader(pipe):
        print(batch[0]["labels"].ravel().tolist())
    source = SourcePipe(2, 1, 0)
    for batch in EpochIterator(source, ["data"], size=source.iterator.size):
        print(batch[0]["data"].sum())
