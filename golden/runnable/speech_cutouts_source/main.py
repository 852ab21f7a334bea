"""A speech data loader with optional SpecAugment-style masking: the pipeline takes the cutouts' source as a
parameter (None when masking is off) and reads it with external_source(num_outputs=2, cycle=True) under a
build-time condition; the loader passes a nested generator function that yields one whole batch per call
(anchors and shapes built from a list comprehension over the batch). The utterances come from a list of batches
of different lengths (a ragged batch), cycled."""

import numpy as np
from nvidia.dali import fn, pipeline_def


@pipeline_def
def speech_pipeline(utterances, train_pipeline=True, do_masking=False, cutouts_generator=None):
    audio = fn.external_source(source=utterances, cycle=True)
    features = fn.reshape(audio, shape=[-1, 4])
    if train_pipeline and do_masking:
        anchors, shapes = fn.external_source(source=cutouts_generator, num_outputs=2, cycle=True)
        features = fn.erase(features, anchor=anchors, shape=shapes, axes=[0, 1], fill_value=0,
                            normalized_anchor=True)
    return features, fn.reductions.sum(features, axes=[0, 1])


class SpeechLoader:
    def __init__(self, batch_size, train, do_masking, seed):
        self.batch_size = batch_size
        rng = np.random.default_rng(seed)

        def _cutouts_generator():
            anchors = [(rng.integers(0, 4) / 8, rng.integers(0, 2) / 4) for _ in range(batch_size)]
            shapes = [(2, 2) for _ in range(batch_size)]
            yield (np.array(anchors, dtype=np.float32), np.array(shapes, dtype=np.float32))

        utterances = [[np.arange(4 * (8 + 2 * i + step), dtype=np.float32) + 100 * step for i in range(batch_size)]
                      for step in range(3)]
        cutouts_gen = _cutouts_generator if do_masking else None
        self.pipe = speech_pipeline(utterances, train, do_masking, cutouts_generator=cutouts_gen,
                                    batch_size=batch_size, num_threads=2, device_id=None)
        self.pipe.build()

    def steps(self, count):
        for _ in range(count):
            features, totals = self.pipe.run()
            yield [np.asarray(features[i]).shape for i in range(len(features))], \
                [float(np.asarray(totals[i])) for i in range(len(totals))]


for train, masking in ((True, True), (True, False), (False, True)):
    loader = SpeechLoader(3, train, masking, seed=5)
    for step, (shapes, totals) in enumerate(loader.steps(7)):
        print(f"train={train} masking={masking} step {step}: shapes {shapes} totals {totals}")
