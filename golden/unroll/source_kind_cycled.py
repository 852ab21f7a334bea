"""Cycled external sources whose kind shows only at run time (a speech loader's masking): a pipeline parameter
read with cycle=True under a build-time condition, given a nested generator function (one yield: one batch) by
its caller, or None; and a cycled source given as a parameter whose batches are lists of samples of different
shapes."""
import numpy as np
from nvidia.dali import fn, pipeline_def


@pipeline_def
def speech_pipeline(utterances, train_pipeline, do_masking, cutouts_generator=None):
    audio = fn.external_source(source=utterances, cycle="quiet")
    features = fn.reshape(audio, shape=[-1, 4])
    if train_pipeline and do_masking:
        anchors, shapes = fn.external_source(source=cutouts_generator, num_outputs=2, cycle=True)
        features = fn.erase(features, anchor=anchors, shape=shapes, axes=[0, 1], fill_value=0,
                            normalized_anchor=True)
    return features


def make_pipeline(utterances, batch_size, do_masking):
    def _cutouts_generator():
        anchors = [(0.25, 0.5) for _ in range(batch_size)]
        shapes = [(2, 2) for _ in range(batch_size)]
        yield (np.array(anchors, dtype=np.float32), np.array(shapes, dtype=np.float32))

    cutouts_gen = _cutouts_generator if do_masking else None
    pipe = speech_pipeline(utterances, True, do_masking, cutouts_generator=cutouts_gen, batch_size=batch_size,
                           num_threads=2, device_id=None)
    pipe.build()
    return pipe
