"""Checkpointing a Pipeline subclass built from ops objects: save after some steps, restore into a new
object through the checkpoint= its __init__ forwards to Pipeline."""

import contextlib
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import ReaderStream  # written by dali-migrate (migrate --write recreates it)


class CkptPipe(ReaderStream):
    def __init__(self, root, batch_size=4, num_threads=2, device_id=None, checkpoint=None):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = 12
        self.checkpoint = checkpoint
        self.input = ndd.readers.File(file_root=root, random_shuffle=True, seed=3, name="Reader", max_batch_size=self.batch_size, enable_checkpointing=True)
        self._readers = {"Reader": self.input}

    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            ndd.random.set_seed(self.seed)
            # checkpointing: readers and RNGs registered by name before the first next_epoch (restored if loaded)
            if self.checkpoint is not None:
                self.checkpoint.register(self.input, "Reader")
                self.checkpoint.register(ndd.random.get_default_rng(), "rng")
            while True:
                for jpegs, labels in self.input.next_epoch(batch_size=self.batch_size):
                    images = ndd.resize(ndd.decoders.image(jpegs), resize_x=16, resize_y=16)
                    angle = ndd.random.uniform(range=(-30.0, 30.0), batch_size=self.batch_size)
                    yield ndd.rotate(images, angle=angle, keep_size=True), labels, angle


class PlainCkptPipe(ReaderStream):
    """enable_checkpointing without a checkpoint parameter: __init__ gets one."""

    def __init__(self, root, *, checkpoint=None):
        self.batch_size = 4
        self.num_threads = 2
        self.device_id = None
        self.seed = None
        self.checkpoint = checkpoint
        self.input = ndd.readers.File(file_root=root, random_shuffle=True, seed=3, max_batch_size=self.batch_size, enable_checkpointing=True)

    def steps(self):
        if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
            ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        # checkpointing: readers and RNGs registered by name before the first next_epoch (restored if loaded)
        if self.checkpoint is not None:
            self.checkpoint.register(self.input, "input")
        while True:
            for jpegs, labels in self.input.next_epoch(batch_size=self.batch_size):
                yield (labels,)


def run_and_save(root, steps):
    pipe_checkpoint = ndd.checkpoint.Checkpoint()
    pipe = CkptPipe(root, checkpoint=pipe_checkpoint)
    outputs = [next(pipe) for _ in range(steps)]
    pipe_checkpoint.collect()
    return outputs, pipe_checkpoint.serialize()


def resume(root, saved, steps):
    pipe_checkpoint = ndd.checkpoint.Checkpoint()
    if saved is not None:
        pipe_checkpoint.deserialize(saved)
    pipe = CkptPipe(root, checkpoint=pipe_checkpoint)
    return [next(pipe) for _ in range(steps)]


def plain_save(root, steps):
    pipe_checkpoint = ndd.checkpoint.Checkpoint()
    pipe = PlainCkptPipe(root, checkpoint=pipe_checkpoint)
    outputs = [next(pipe) for _ in range(steps)]
    pipe_checkpoint.collect()
    return outputs, pipe_checkpoint.serialize()
