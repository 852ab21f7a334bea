"""Pipelines of the project, used from train.py."""

import contextlib
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


def train_pipe(root, size=16, *, batch_size=4, num_threads=2, device_id=None, seed=3):
    reader = ndd.readers.File(file_root=root, random_shuffle=True, seed=1, name="Reader", max_batch_size=batch_size)

    @Prefetch(depth=2)
    def steps():
        with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
            if num_threads is not None and num_threads > ndd.get_num_threads():
                ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            while True:
                for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                    images = ndd.decoders.image(jpegs)
                    yield ndd.resize(images, resize_x=size, resize_y=size), labels

    return ReaderStream(steps(), {"Reader": reader}, batch_size)


class ValPipe(ReaderStream):
    def __init__(self, root, batch_size=4, num_threads=2, device_id=None):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = 5
        self.root = root
        self.reader = ndd.readers.File(file_root=self.root, name="Reader", max_batch_size=self.batch_size)
        self._readers = {"Reader": self.reader}

    @Prefetch(depth=2)
    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            while True:
                for jpegs, labels in self.reader.next_epoch(batch_size=self.batch_size):
                    images = ndd.decoders.image(jpegs)
                    yield ndd.resize(images, resize_x=8, resize_y=8), labels


def make_padded_pipe(root):
    def pipe_steps(*, batch_size=3):
        reader = ndd.readers.File(file_root=root, pad_last_batch=True, max_batch_size=batch_size)

        @Prefetch(depth=2)
        def steps():
            if ndd.get_num_threads() < 2:
                ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4
            while True:
                for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                    yield ndd.decoders.image(jpegs), labels

        return ReaderStream(steps(), {}, batch_size)
    pipe = pipe_steps()
    return pipe


def resumable_pipe(root, *, batch_size=4, num_threads=2, device_id=None, seed=None, checkpoint=None):
    with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
        if num_threads is not None and num_threads > ndd.get_num_threads():
            ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        reader = ndd.readers.File(file_root=root, random_shuffle=True, seed=9, enable_checkpointing=True)
        # checkpointing: readers and RNGs registered by name before the first next_epoch (restored if loaded)
        if checkpoint is not None:
            checkpoint.register(reader, "reader")
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield (labels,)
