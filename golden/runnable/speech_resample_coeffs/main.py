"""Speed perturbation in a speech Pipeline subclass: __init__ puts the resampling coefficients in one attribute
three ways (an ops.ExternalSource over an iterable of per-sample coefficients, an ops.random.Uniform over a range,
or None), and define_graph resamples only when training and the attribute holds something. The fed
coefficients are compared value for value; the random ones by what the seed fixes (the same seed gives the same
coefficients, one per sample, inside the range)."""

import numpy as np
from nvidia.dali import fn, ops, types
from nvidia.dali.pipeline import Pipeline


class SpeedSchedule:
    """Per-sample coefficients, one batch per step, for a fixed number of steps."""

    def __init__(self, batch_size, steps):
        self.batch_size, self.steps, self.step = batch_size, steps, 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.step >= self.steps:
            raise StopIteration
        self.step += 1
        return np.array([0.85 + 0.05 * ((self.step + i) % 5) for i in range(self.batch_size)], dtype=np.float32)


class AudioPipeline(Pipeline):
    def __init__(self, utterances, batch_size, train, resample_range=None, speeds=None, seed=12):
        super().__init__(batch_size, 2, None, seed=seed)
        self.train = train
        self.sample_rate = 16000.0
        self.utterances = utterances
        if speeds is not None:
            self.speed_coeffs = ops.ExternalSource(source=speeds)
        elif resample_range is not None:
            self.speed_coeffs = ops.random.Uniform(device="cpu", range=resample_range)
        else:
            self.speed_coeffs = None

    def define_graph(self):
        audio = fn.external_source(source=self.utterances, cycle=True)
        if not self.train or self.speed_coeffs is None:
            rate = fn.cast(fn.reductions.max(audio) * 0 + self.sample_rate, dtype=types.FLOAT)
        else:
            resample = self.speed_coeffs() * self.sample_rate
            audio = fn.audio_resample(audio, in_rate=self.sample_rate, out_rate=resample)
            rate = resample
        return audio, rate


UTTERANCES = [[np.sin(np.arange(400 + 40 * i + 20 * k, dtype=np.float32) / 7) for i in range(3)] for k in range(2)]


def run(pipe, steps):
    pipe.build()
    out = []
    for _ in range(steps):
        try:
            audio, rate = pipe.run()
        except StopIteration:
            out.append("StopIteration")
            break
        out.append(([np.asarray(audio[i]).shape[0] for i in range(len(audio))],
                    [float(np.asarray(audio[i]).sum()) for i in range(len(audio))],
                    [float(np.asarray(rate[i])) for i in range(len(rate))]))
    return out


for step in run(AudioPipeline(UTTERANCES, 3, True, speeds=SpeedSchedule(3, 4)), 6):
    print("fed", step)
for step in run(AudioPipeline(UTTERANCES, 3, False, speeds=SpeedSchedule(3, 4)), 3):
    print("fed, not training", step)
for step in run(AudioPipeline(UTTERANCES, 3, True), 3):
    print("none", step)
first = run(AudioPipeline(UTTERANCES, 3, True, resample_range=[0.9, 1.1]), 4)
again = run(AudioPipeline(UTTERANCES, 3, True, resample_range=[0.9, 1.1]), 4)
print("random: same seed, same coefficients:", first == again)
rates = [rate for _, _, step_rates in first for rate in step_rates]
print("random: one per sample, in range:", all(len(set(step_rates)) == 3 for _, _, step_rates in first),
      all(0.9 * 16000 - 1e-3 <= r <= 1.1 * 16000 + 1e-3 for r in rates))
