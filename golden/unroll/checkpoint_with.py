"""Checkpointing `with pipe:` pipelines: one returned by a factory that forwards checkpoint= to Pipeline,
one built where it is used."""

import nvidia.dali.fn as fn
from nvidia.dali import Pipeline


def make_pipe(root, checkpoint=None):
    pipe = Pipeline(batch_size=4, num_threads=2, device_id=None, seed=12, enable_checkpointing=True,
                    checkpoint=checkpoint)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=3, name="Reader")
        images = fn.resize(fn.decoders.image(jpegs), resize_x=16, resize_y=16)
        angle = fn.random.uniform(range=(-30.0, 30.0))
        pipe.set_outputs(fn.rotate(images, angle=angle, keep_size=True), labels, angle)
    return pipe


def run_and_save(root, steps):
    pipe = make_pipe(root)
    pipe.build()
    outputs = [pipe.run() for _ in range(steps)]
    return outputs, pipe.checkpoint()


def resume(root, saved, steps):
    pipe = make_pipe(root, checkpoint=saved)
    pipe.build()
    return [pipe.run() for _ in range(steps)]


def make_plain_pipe(root):
    """No checkpoint parameter: the factory gets one."""
    pipe = Pipeline(batch_size=4, num_threads=2, device_id=None, enable_checkpointing=True)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=3)
        pipe.set_outputs(labels)
    return pipe


def plain_save(root, steps):
    pipe = make_plain_pipe(root)
    pipe.build()
    outputs = [pipe.run() for _ in range(steps)]
    return outputs, pipe.checkpoint()


def inline_round_trip(root, saved, steps):
    """Built and used in one function: saved is None for a fresh start."""
    pipe = Pipeline(batch_size=4, num_threads=2, device_id=None, enable_checkpointing=True, checkpoint=saved)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=3)
        pipe.set_outputs(labels)
    pipe.build()
    outputs = [pipe.run() for _ in range(steps)]
    return outputs, pipe.checkpoint()
