"""Pipeline subclasses whose __init__ chooses their reader by a condition (if/else, a conditional expression), and
whose define_graph reads a reader or a source under `if self.train:` (a named one there is created in __init__ under
that condition, and listed by its name)."""
import inspect
from nvidia.dali import types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


class TrainPipe(ReaderStream):
    def __init__(self, batch_size, root, file_list, use_list):
        self.batch_size = batch_size
        self.num_threads = 2
        self.device_id = None
        self.seed = 12
        if use_list:
            self.input = ndd.readers.File(file_root=root, file_list=file_list, random_shuffle=True, name="Reader", seed=self.seed, max_batch_size=self.batch_size)
            self._readers = {"Reader": self.input}
        else:
            self.input = ndd.readers.File(file_root=root, random_shuffle=True, seed=4, name="Reader", max_batch_size=self.batch_size)
            self._readers = {"Reader": self.input}

    def steps(self):
        if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
            ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        while True:
            for jpegs, labels in self.input.next_epoch(batch_size=self.batch_size):
                yield ndd.decoders.image(jpegs, device="cpu", output_type=types.RGB), labels


class ArrayPipe(ReaderStream):
    def __init__(self, batch_size, root, shuffled):
        self.batch_size = batch_size
        self.num_threads = 2
        self.device_id = None
        self.seed = None
        self.read = ndd.readers.Numpy(file_root=root, random_shuffle=True, seed=3, max_batch_size=self.batch_size) if shuffled else ndd.readers.Numpy(file_root=root, max_batch_size=self.batch_size)

    def steps(self):
        if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
            ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        while True:
            for (arrays,) in self.read.next_epoch(batch_size=self.batch_size):
                yield (arrays * 2.0,)


pipe = TrainPipe(4, "imgs", "list.txt", False)
print(pipe.epoch_size("Reader"))
images, labels = next(pipe)
arrays = ArrayPipe(2, "arr", True)
(a,) = next(arrays)


class Loader(ReaderStream):
    def __init__(self, batch_size, root, source, train):
        self.batch_size = batch_size
        self.num_threads = 2
        self.device_id = None
        self.seed = 3
        self.root = root
        self.source = source
        self.train = train

    def steps(self):
        if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
            ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        def endless(reader):  # one reader's batches, epoch after epoch, as pipe.run() read them
            while True:
                yield from reader.next_epoch(batch_size=self.batch_size)

        if not self.train:
            reader = ndd.readers.File(file_root=self.root)
            batches = endless(reader)
        if self.train:
            source_2 = self.source
            source_2 = source_2() if inspect.isgeneratorfunction(source_2) else source_2
            source_2_next = iter(source_2).__next__ if hasattr(source_2, '__iter__') else None
            source_2_takes_info = source_2_next is None and len(inspect.signature(source_2).parameters) > 0
            source_2_step = 0  # the iteration in the epoch, as pipeline mode counted it
        while True:
            if self.train:
                try:
                    jpegs = source_2_next() if source_2_next else source_2(source_2_step) if source_2_takes_info else source_2()
                except StopIteration:
                    return  # the source is exhausted: pipe.run() raised StopIteration from here on
                source_2_step += 1
                jpegs = ndd.as_batch(jpegs)
                labels = ndd.Batch.broadcast(ndd.tensor([0], dtype=ndd.int32), self.batch_size)
            else:
                jpegs, labels = next(batches)
            yield ndd.decoders.image(jpegs), labels


class Named(ReaderStream):
    def __init__(self, batch_size, root, train):
        self.batch_size = batch_size
        self.num_threads = 2
        self.device_id = None
        self.seed = None
        self.root = root
        self.train = train
        if self.train:
            self.reader = ndd.readers.File(file_root=self.root, random_shuffle=True, name="Reader", seed=self.seed, max_batch_size=self.batch_size)
            self._readers = {**self._readers, "Reader": self.reader}
        if not self.train:
            self.reader_2 = ndd.readers.File(file_root=self.root, name="Reader", max_batch_size=self.batch_size)
            self._readers = {**self._readers, "Reader": self.reader_2}

    @Prefetch(depth=2)
    def steps(self):
        if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
            ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        def endless(reader):  # one reader's batches, epoch after epoch, as pipe.run() read them
            while True:
                yield from reader.next_epoch(batch_size=self.batch_size)

        if self.train:
            batches = endless(self.reader)
        else:
            batches_2 = endless(self.reader_2)
        while True:
            if self.train:
                jpegs, labels = next(batches)
            else:
                jpegs, labels = next(batches_2)
            yield jpegs, labels


loader = Loader(2, "imgs", None, False)
images, labels = next(loader)
named = Named(2, "imgs", True)
print(named.epoch_size("Reader"))
