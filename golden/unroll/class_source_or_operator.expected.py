"""A Pipeline subclass whose __init__ puts an external source, a random operator or None in one attribute (a speech
loader's speed-perturbation coefficients), and whose define_graph calls it only where it holds something."""
import numpy as np
import inspect
from nvidia.dali import types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import ReaderStream  # written by dali-migrate (migrate --write recreates it)


class AudioPipeline(ReaderStream):
    def __init__(self, utterances, batch_size, train, resample_range=None, speeds=None, seed=12):
        self.batch_size = batch_size
        self.num_threads = 2
        self.device_id = None
        self.seed = seed
        self.train = train
        self.sample_rate = 16000.0
        self.utterances = utterances
        if speeds is not None:
            def speed_coeffs_batches():  # what ops.ExternalSource(speeds) gave: a batch a step
                source = speeds
                source = source() if inspect.isgeneratorfunction(source) else source
                source_next = iter(source).__next__ if hasattr(source, '__iter__') else None
                source_takes_info = source_next is None and len(inspect.signature(source).parameters) > 0
                source_step = 0  # the iteration in the epoch, as pipeline mode counted it
                while True:
                    try:
                        speed_coeffs = source_next() if source_next else source(source_step) if source_takes_info else source()
                    except StopIteration:
                        return  # the source is exhausted: pipe.run() raised StopIteration from here on
                    source_step += 1
                    speed_coeffs = ndd.as_batch(speed_coeffs, dtype=types.FLOAT)
                    yield speed_coeffs
            speed_coeffs_stream = speed_coeffs_batches()
            self.speed_coeffs = lambda *inputs, **kwargs: next(speed_coeffs_stream)
        elif resample_range is not None:
            self.speed_coeffs = lambda *inputs, **kwargs: ndd.random.uniform(*inputs, device="cpu", range=resample_range, **kwargs)
        else:
            self.speed_coeffs = None

    def steps(self):
        if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
            ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        if self.seed is not None:
            ndd.random.set_seed(self.seed)
        source = self.utterances
        source = source() if inspect.isgeneratorfunction(source) else source
        source_next = iter(source).__next__ if hasattr(source, '__iter__') else None
        source_takes_info = source_next is None and len(inspect.signature(source).parameters) > 0
        source_step = 0  # the iteration in the epoch, as pipeline mode counted it
        while True:
            try:
                audio = source_next() if source_next else source(source_step) if source_takes_info else source()
            except StopIteration:
                return  # the source is exhausted: pipe.run() raised StopIteration from here on
            source_step += 1
            audio = ndd.as_batch(audio)
            if not self.train or self.speed_coeffs is None:
                rate = ndd.cast(ndd.reductions.max(audio) * 0 + self.sample_rate, dtype=types.FLOAT)
            else:
                try:
                    resample = self.speed_coeffs(batch_size=self.batch_size) * self.sample_rate
                except StopIteration:  # self.speed_coeffs held an external source, and it ended: pipe.run() raised StopIteration from here on
                    return
                audio = ndd.audio_resample(audio, in_rate=self.sample_rate, out_rate=resample)
                rate = resample
            yield audio, rate


def speeds(batch_size):
    for step in range(3):
        yield np.full((batch_size,), 0.9 + 0.1 * step, dtype=np.float32)
