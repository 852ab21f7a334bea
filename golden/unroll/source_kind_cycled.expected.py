"""Cycled external sources whose kind shows only at run time (a speech loader's masking): a pipeline parameter
read with cycle=True under a build-time condition, given a nested generator function (one yield: one batch) by
its caller, or None; and a cycled source given as a parameter whose batches are lists of samples of different
shapes."""
import numpy as np
import inspect
import nvidia.dali.experimental.dynamic as ndd


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


def speech_pipeline(utterances, train_pipeline, do_masking, cutouts_generator=None, *, batch_size):
    source_1 = utterances
    source_1_again = source_1 if inspect.isgeneratorfunction(source_1) else lambda: source_1
    source_1_next = iter(source_1_again()).__next__
    if (train_pipeline and do_masking):
        source_2 = cutouts_generator
        source_2_again = source_2 if inspect.isgeneratorfunction(source_2) else lambda: source_2
        source_2_next = iter(source_2_again()).__next__
    while True:
        try:
            audio = source_1_next()
        except StopIteration:  # cycle="quiet": read again from the start at once, as pipeline mode did
            source_1_next = iter(source_1_again()).__next__
            audio = source_1_next()
        audio = ndd.as_batch(audio)
        features = ndd.reshape(audio, shape=[-1, 4])
        if (train_pipeline and do_masking):
            try:
                anchors, shapes = source_2_next()
            except StopIteration:  # cycle=True: read again from the start at once, as pipeline mode did
                source_2_next = iter(source_2_again()).__next__
                anchors, shapes = source_2_next()
            anchors = ndd.as_batch(anchors)
            shapes = ndd.as_batch(shapes)
            features = ndd.erase(features, anchor=anchors, shape=shapes, axes=[0, 1], fill_value=0,
                                normalized_anchor=True)
        yield (features,)


def make_pipeline(utterances, batch_size, do_masking):
    def _cutouts_generator():
        anchors = [(0.25, 0.5) for _ in range(batch_size)]
        shapes = [(2, 2) for _ in range(batch_size)]
        yield (np.array(anchors, dtype=np.float32), np.array(shapes, dtype=np.float32))

    cutouts_gen = _cutouts_generator if do_masking else None
    pipe = speech_pipeline(utterances, True, do_masking, cutouts_generator=cutouts_gen, batch_size=batch_size)
    return pipe
