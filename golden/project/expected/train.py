"""Consumes the project's pipelines; imports no DALI itself."""

from loaders.pipes import ValPipe, make_padded_pipe, resumable_pipe, train_pipe
import nvidia.dali.experimental.dynamic as ndd


def train_steps(root, steps):
    pipe = train_pipe(root, 16)
    return [next(pipe) for _ in range(steps)]


def val_steps(root, steps):
    pipe = ValPipe(root)
    return [next(pipe) for _ in range(steps)]


def padded_steps(root, steps):
    pipe = make_padded_pipe(root)
    return [next(pipe) for _ in range(steps)]


def epoch_length(root):
    pipe = train_pipe(root)
    return pipe.epoch_size("Reader")


def save_and_resume(root, steps):
    pipe_checkpoint = ndd.checkpoint.Checkpoint()
    pipe = resumable_pipe(root, checkpoint=pipe_checkpoint)
    first = [next(pipe) for _ in range(steps)]
    pipe_checkpoint.collect()
    saved = pipe_checkpoint.serialize()
    again_checkpoint = ndd.checkpoint.Checkpoint()
    if saved is not None:
        again_checkpoint.deserialize(saved)
    again = resumable_pipe(root, checkpoint=again_checkpoint)
    return first, [next(again) for _ in range(steps)]
