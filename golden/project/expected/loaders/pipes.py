"""Pipelines of the project, used from train.py."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def
import nvidia.dali.experimental.dynamic as ndd


# dali-migrate: DM230 train_pipe stays in pipeline mode with the rest of its unit, in another module: in train, line 27: pipe.epoch_size("Reader") not migrated: train_pipe is defined in loaders.pipes, so its reader is not known here; build the reader 'Reader' once more with the arguments it has in train_pipe and call its get_metadata()["epoch_size"]
@pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=3)
def train_pipe(root, size=16):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=1, name="Reader")
    images = fn.decoders.image(jpegs)
    return fn.resize(images, resize_x=size, resize_y=size), labels


class ValPipe:
    def __init__(self, root, batch_size=4, num_threads=2, device_id=None):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = 5
        self.root = root

    def __iter__(self):
        if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
            ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        reader = ndd.readers.File(file_root=self.root, name="Reader")
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=self.batch_size):
                images = ndd.decoders.image(jpegs)
                yield ndd.resize(images, resize_x=8, resize_y=8), labels


def make_padded_pipe(root):
    def pipe_steps(*, batch_size=3, num_threads=2, device_id=None, seed=None):
        if num_threads is not None and num_threads > ndd.get_num_threads():
            ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        reader = ndd.readers.File(file_root=root, pad_last_batch=True)
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield ndd.decoders.image(jpegs), labels
    pipe = pipe_steps()
    return pipe


def resumable_pipe(root, *, batch_size=4, num_threads=2, device_id=None, seed=None, checkpoint=None):
    if num_threads is not None and num_threads > ndd.get_num_threads():
        ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
    reader = ndd.readers.File(file_root=root, random_shuffle=True, seed=9, enable_checkpointing=True)
    # checkpointing: readers and RNGs registered by name before the first next_epoch (restored if loaded)
    if checkpoint is not None:
        checkpoint.register(reader, "reader")
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield (labels,)
