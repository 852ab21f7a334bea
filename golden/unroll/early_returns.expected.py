"""Early returns under build-time conditions: a Pipeline subclass whose define_graph returns early when a flag of
__init__ is set (its reader made by the base class's reader maker, given kwargs["..."]), and a @pipeline_def
with nested early returns on its arguments. Each branch yields its own outputs."""

import contextlib
import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


class BasePipeline(ReaderStream):
    def __init__(self, batch_size, num_threads, device_id, **kwargs):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = kwargs["seed"]
        self.kwargs = kwargs

    def get_reader(self, data):
        return ndd.readers.Numpy(files=data, shard_id=0, num_shards=1, seed=self.kwargs["seed"])


class TrainPipeline(BasePipeline):
    def __init__(self, batch_size, num_threads, device_id, **kwargs):
        super().__init__(batch_size, num_threads, device_id, **kwargs)
        self.input_x = ndd.readers.Numpy(files=kwargs["imgs"], shard_id=0, num_shards=1, seed=self.kwargs["seed"], name="ReaderX", max_batch_size=self.batch_size)
        self._readers = {"ReaderX": self.input_x}
        self.evaluate = kwargs["evaluate"]

    @Prefetch(depth=2)
    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            if self.seed is not None:
                ndd.random.set_seed(self.seed)
            while True:
                for (img,) in self.input_x.next_epoch(batch_size=self.batch_size):
                    if self.evaluate:
                        yield img, ndd.as_batch(img.shape, dtype=ndd.int64, device=img.device)
                    else:
                        img = ndd.flip(img, horizontal=ndd.random.coin_flip(batch_size=self.batch_size))
                        yield img, ndd.as_batch(img.shape, dtype=ndd.int64, device=img.device)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


def volumes(files, raw, scale, *, batch_size=4):
    reader = ndd.readers.Numpy(files=files, name="Reader")
    while True:
        for (data,) in reader.next_epoch(batch_size=batch_size):
            if raw:
                yield (data,)
            else:
                data = ndd.cast(data, dtype=types.FLOAT)
                if scale is not None:
                    data = data * scale
                    yield data, ndd.as_batch(data.shape, dtype=ndd.int64, device=data.device)
                else:
                    yield data, data


pipe = TrainPipeline(4, 2, None, imgs=["a.npy", "b.npy"], seed=1, evaluate=True)
image, shape = next(pipe)
raw = volumes(["a.npy"], False, 2.0)
outputs = next(raw)
print(len(outputs))
