"""Consumes the project's pipelines; imports no DALI itself."""

from loaders.pipes import ValPipe, make_padded_pipe, resumable_pipe, train_pipe


def train_steps(root, steps):
    pipe = train_pipe(root, 16, prefetch_queue_depth=2)
    pipe.build()
    return [pipe.run() for _ in range(steps)]


def val_steps(root, steps):
    pipe = ValPipe(root)
    pipe.build()
    return [pipe.run() for _ in range(steps)]


def padded_steps(root, steps):
    pipe = make_padded_pipe(root)
    pipe.build()
    return [pipe.run() for _ in range(steps)]


def epoch_length(root):
    pipe = train_pipe(root)
    pipe.build()
    return pipe.epoch_size("Reader")


def save_and_resume(root, steps):
    pipe = resumable_pipe(root)
    pipe.build()
    first = [pipe.run() for _ in range(steps)]
    saved = pipe.checkpoint()
    again = resumable_pipe(root, checkpoint=saved)
    again.build()
    return first, [again.run() for _ in range(steps)]
