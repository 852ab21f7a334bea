"""Checkpointing `with pipe:` pipelines: one returned by a factory that forwards checkpoint= to Pipeline,
one built where it is used."""

import nvidia.dali.experimental.dynamic as ndd


def make_pipe(root, checkpoint=None):
    def pipe_steps(*, batch_size=4, seed=12, checkpoint=checkpoint):
        if ndd.get_num_threads() < 2:
            ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4
        ndd.random.set_seed(seed)
        reader = ndd.readers.File(file_root=root, random_shuffle=True, seed=3, name="Reader", enable_checkpointing=True)
        # checkpointing: readers and RNGs registered by name before the first next_epoch (restored if loaded)
        if checkpoint is not None:
            checkpoint.register(reader, "Reader")
            checkpoint.register(ndd.random.get_default_rng(), "rng")
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                images = ndd.resize(ndd.decoders.image(jpegs), resize_x=16, resize_y=16)
                angle = ndd.random.uniform(range=(-30.0, 30.0), batch_size=batch_size)
                yield ndd.rotate(images, angle=angle, keep_size=True), labels, angle
    pipe = pipe_steps()
    return pipe


def run_and_save(root, steps):
    pipe_checkpoint = ndd.checkpoint.Checkpoint()
    pipe = make_pipe(root, checkpoint=pipe_checkpoint)
    outputs = [next(pipe) for _ in range(steps)]
    pipe_checkpoint.collect()
    return outputs, pipe_checkpoint.serialize()


def resume(root, saved, steps):
    pipe_checkpoint = ndd.checkpoint.Checkpoint()
    if saved is not None:
        pipe_checkpoint.deserialize(saved)
    pipe = make_pipe(root, checkpoint=pipe_checkpoint)
    return [next(pipe) for _ in range(steps)]


def make_plain_pipe(root, *, checkpoint=None):
    """No checkpoint parameter: the factory gets one."""
    def pipe_steps(*, batch_size=4, checkpoint=checkpoint):
        if ndd.get_num_threads() < 2:
            ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4
        reader = ndd.readers.File(file_root=root, random_shuffle=True, seed=3, enable_checkpointing=True)
        # checkpointing: readers and RNGs registered by name before the first next_epoch (restored if loaded)
        if checkpoint is not None:
            checkpoint.register(reader, "reader")
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield (labels,)
    pipe = pipe_steps()
    return pipe


def plain_save(root, steps):
    pipe_checkpoint = ndd.checkpoint.Checkpoint()
    pipe = make_plain_pipe(root, checkpoint=pipe_checkpoint)
    outputs = [next(pipe) for _ in range(steps)]
    pipe_checkpoint.collect()
    return outputs, pipe_checkpoint.serialize()


def inline_round_trip(root, saved, steps):
    """Built and used in one function: saved is None for a fresh start."""
    def pipe_steps(*, batch_size=4, checkpoint=None):
        if ndd.get_num_threads() < 2:
            ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4
        reader = ndd.readers.File(file_root=root, random_shuffle=True, seed=3, enable_checkpointing=True)
        # checkpointing: readers and RNGs registered by name before the first next_epoch (restored if loaded)
        if checkpoint is not None:
            checkpoint.register(reader, "reader")
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield (labels,)
    pipe_checkpoint = ndd.checkpoint.Checkpoint()
    if saved is not None:
        pipe_checkpoint.deserialize(saved)
    pipe = pipe_steps(checkpoint=pipe_checkpoint)
    outputs = [next(pipe) for _ in range(steps)]
    pipe_checkpoint.collect()
    return outputs, pipe_checkpoint.serialize()
