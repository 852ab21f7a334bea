"""Lengths a speech pipeline computes with fn.shapes of an expression: the audio length from
fn.shapes(fn.reshape(audio, shape=[-1])), the number of spectrogram frames from
fn.slice(fn.shapes(spec), 1, 1, axes=(0,)) (in a @pipeline_def and in a Pipeline subclass), one of them cast to
INT32 with dtype=; the utterances have different lengths."""

import numpy as np
from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.pipeline import Pipeline


def utterances():
    for step in range(4):
        yield [np.sin(np.arange(64 + 24 * i + 8 * step, dtype=np.float32) / 5) for i in range(3)]


@pipeline_def(batch_size=3, num_threads=2, device_id=None)
def features_pipeline(nfft):
    audio = fn.external_source(source=utterances, cycle=False)
    audio_len = fn.shapes(fn.reshape(audio, shape=[-1]), dtype=types.INT32)
    spec = fn.spectrogram(audio, nfft=nfft, window_length=nfft, window_step=nfft // 2)
    spec_len = fn.slice(fn.shapes(spec), 1, 1, axes=(0,))
    return fn.reductions.sum(spec, axes=[0, 1]), audio_len, spec_len


class FeaturesPipeline(Pipeline):
    def __init__(self, batch_size, nfft):
        super().__init__(batch_size, 2, None)
        self.nfft = nfft
        self.source = utterances

    def define_graph(self):
        audio = fn.external_source(source=self.source)
        spec = fn.spectrogram(audio, nfft=self.nfft, window_length=self.nfft, window_step=self.nfft // 2)
        return fn.slice(fn.shapes(spec), 1, 1, axes=(0,)), fn.shapes(fn.reshape(audio, shape=[-1]))


def show(name, outputs):
    for k, out in enumerate(outputs):
        values = [np.asarray(out[i]) for i in range(len(out))]
        print(name, k, [v.tolist() for v in values], [str(v.dtype) for v in values])


pipe = features_pipeline(16)
pipe.build()
for _ in range(2):
    show("def", pipe.run())
pipe = FeaturesPipeline(3, 8)
pipe.build()
for _ in range(2):
    show("class", pipe.run())
