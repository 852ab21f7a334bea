"""A base Pipeline class with shared ops and a helper, a subclass with its own reader and define_graph, and a
subclass with only define_graph (an fn reader): each becomes a ReaderStream that answers its metadata."""

import contextlib
import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


class Base(ReaderStream):
    def __init__(self, root, batch_size, num_threads=2, device_id=None):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = 5
        self.root = root
        self.decode = lambda *inputs, **kwargs: ndd.decoders.image(*inputs, device="gpu", output_type=types.RGB, **kwargs)
        self.coin = lambda *inputs, **kwargs: ndd.random.coin_flip(*inputs, probability=0.5, **kwargs)

    def finish(self, jpegs, labels):
        images = self.decode(jpegs)
        return ndd.flip(images, horizontal=self.coin(batch_size=self.batch_size)), labels


class Files(Base):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.input = ndd.readers.File(file_root=self.root, name="Reader", max_batch_size=self.batch_size)
        self._readers = {"Reader": self.input}

    @Prefetch(depth=2)
    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            ndd.random.set_seed(self.seed)
            while True:
                for jpegs, labels in self.input.next_epoch(batch_size=self.batch_size):
                    outputs = self.finish(jpegs, labels)
                    yield tuple(outputs) if isinstance(outputs, (tuple, list)) else (outputs,)


class Shuffled(Base):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.reader = ndd.readers.File(file_root=self.root, random_shuffle=True, seed=1, name="Reader", max_batch_size=self.batch_size)
        self._readers = {"Reader": self.reader}

    @Prefetch(depth=2)
    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            ndd.random.set_seed(self.seed)
            while True:
                for jpegs, labels in self.reader.next_epoch(batch_size=self.batch_size):
                    outputs = self.finish(jpegs, labels)
                    yield tuple(outputs) if isinstance(outputs, (tuple, list)) else (outputs,)


def first_steps(root):
    pipes = [cls(root=root, batch_size=2) for cls in (Files, Shuffled)]
    sizes = [pipe.epoch_size("Reader") for pipe in pipes]
    return sizes, [next(pipe) for pipe in pipes]
