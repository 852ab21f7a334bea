"""Loader classes and a factory that hand their *args/**kwargs to DALIGenericIterator (a wrapper that reshapes
the plugin's output): the iterator decides at run time, and what callers pass there (by position, or as
pipelines=) migrates. The pipelines: a Pipeline base class with define_graph, subclasses that create the reader in
their own __init__, and a @pipeline_def. A pipeline saved with serialize() stays in pipeline mode and goes to the
same wrapper (the plugin's own iterator then). (wrapper_stars_read.py: a wrapper that also reads its *args.)"""

import contextlib
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import EpochIterator, Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


class Loader:
    def __init__(self, *args, **kwargs):
        self.inner = EpochIterator(*args, **kwargs)

    def __iter__(self):
        return self

    def __next__(self):
        out = next(self.inner)[0]
        return out["small"].float().div(255), out["large"].float().div(255)

    @property
    def size(self):
        return self.inner._size

    def __len__(self):
        return self.inner._size // self.inner.batch_size

    def reset(self):
        self.inner.reset()


def make_loader(*args, output_map=("small", "large"), **kwargs):
    return EpochIterator(*args, output_map=list(output_map), **kwargs)


class ScalePipeline(ReaderStream):
    def __init__(self, batch_size, num_threads, device_id, side):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = None
        self.decode = lambda *inputs, **kwargs: ndd.decoders.image(*inputs, device="gpu", output_type=types.RGB, **kwargs)
        self.shrink = lambda *inputs, **kwargs: ndd.resize(*inputs, resize_x=side, resize_y=side, **kwargs)

    @Prefetch(depth=2)
    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            while True:
                jpegs, _labels = self.input(name="Reader")
                large = self.decode(jpegs)
                yield self.shrink(large), large


class FolderPipeline(ScalePipeline):
    def __init__(self, *, batch_size, num_threads, device_id, side, data_dir):
        super().__init__(batch_size, num_threads, device_id, side)
        self.input = ndd.readers.File(file_root=data_dir, name="Reader", max_batch_size=self.batch_size)
        self._readers = {"Reader": self.input}

    @Prefetch(depth=2)
    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            while True:
                for jpegs, _labels in self.input.next_epoch(batch_size=self.batch_size):
                    large = self.decode(jpegs)
                    yield self.shrink(large), large


class ListPipeline(ScalePipeline):
    def __init__(self, *, batch_size, num_threads, device_id, side, file_list):
        super().__init__(batch_size, num_threads, device_id, side)
        self.input = ndd.readers.File(file_root="", file_list=file_list, name="Reader", max_batch_size=self.batch_size)
        self._readers = {"Reader": self.input}

    @Prefetch(depth=2)
    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            while True:
                for jpegs, _labels in self.input.next_epoch(batch_size=self.batch_size):
                    large = self.decode(jpegs)
                    yield self.shrink(large), large


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


def gray_pairs(root, *, batch_size=4):
    reader = ndd.readers.File(file_root=root, max_batch_size=batch_size)

    @Prefetch(depth=2)
    def steps():
        while True:
            for jpegs, _ in reader.next_epoch(batch_size=batch_size):
                large = ndd.decoders.image(jpegs, device="gpu", output_type=types.GRAY)
                yield ndd.resize(large, resize_x=4, resize_y=4), large

    return ReaderStream(steps(), {}, batch_size)


# dali-migrate: DM230 saved_pairs stays in pipeline mode with everything that uses it: line 95: pipe.serialize() has no dynamic-mode counterpart: there is no graph to serialize
@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def saved_pairs(root):
    jpegs, _ = fn.readers.file(file_root=root, name="Reader")
    large = fn.decoders.image(jpegs, device="mixed")
    return fn.resize(large, resize_x=4, resize_y=4), large


def train(root, file_list):
    pipe = FolderPipeline(batch_size=8, num_threads=2, device_id=0, side=32, data_dir=root)
    for small, large in Loader([pipe], ["small", "large"], size=pipe.epoch_size("Reader")):
        print(small.shape, large.shape)
    val = ListPipeline(batch_size=8, num_threads=2, device_id=0, side=32, file_list=file_list)
    loader = Loader(pipelines=[val], output_map=["small", "large"], reader_name="Reader",
                    last_batch_policy="PARTIAL")
    print(len(loader), loader.size)
    loader.reset()
    for step in make_loader(gray_pairs(root), size=10):
        print(step[0]["small"].shape)


def export(root, path):
    pipe = saved_pairs(root)
    # dali-migrate: DM214 pipe.serialize() has no dynamic-mode counterpart: there is no graph to serialize
    pipe.serialize(filename=path)
    for small, large in Loader([pipe], ["small", "large"], reader_name="Reader"):
        print(small.shape)
