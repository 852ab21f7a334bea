"""A Pipeline subclass whose __init__ puts an external source, a random operator or None in one attribute (a speech
loader's speed-perturbation coefficients), and whose define_graph calls it only where it holds something."""
import numpy as np
from nvidia.dali import fn, ops, types
from nvidia.dali.pipeline import Pipeline


class AudioPipeline(Pipeline):
    def __init__(self, utterances, batch_size, train, resample_range=None, speeds=None, seed=12):
        super().__init__(batch_size, 2, None, seed=seed)
        self.train = train
        self.sample_rate = 16000.0
        self.utterances = utterances
        if speeds is not None:
            self.speed_coeffs = ops.ExternalSource(source=speeds, dtype=types.FLOAT)
        elif resample_range is not None:
            self.speed_coeffs = ops.random.Uniform(device="cpu", range=resample_range)
        else:
            self.speed_coeffs = None

    def define_graph(self):
        audio = fn.external_source(source=self.utterances)
        if not self.train or self.speed_coeffs is None:
            rate = fn.cast(fn.reductions.max(audio) * 0 + self.sample_rate, dtype=types.FLOAT)
        else:
            resample = self.speed_coeffs() * self.sample_rate
            audio = fn.audio_resample(audio, in_rate=self.sample_rate, out_rate=resample)
            rate = resample
        return audio, rate


def speeds(batch_size):
    for step in range(3):
        yield np.full((batch_size,), 0.9 + 0.1 * step, dtype=np.float32)
