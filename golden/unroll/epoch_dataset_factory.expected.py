"""A dataset class (not a Pipeline subclass) whose factory method builds its pipeline into self.pipe, fed by a
per-sample callable that ends each epoch with StopIteration (parallel=True, worker processes); __iter__ resets the
pipeline and returns a new DALIGenericIterator each epoch. The reset() stays: the migrated pipeline restarts
its source's steps there with the next epoch_idx."""

import numpy as np
import contextlib
import inspect
import nvidia.dali.experimental.dynamic as ndd
from nvidia.dali.types import SampleInfo
from dali_dynamic_compat import EpochIterator, ReaderStream  # written by dali-migrate (migrate --write recreates it)


class Source:
    def __init__(self, data, batch_size):
        self.data = data
        self.num_batches = len(data) // batch_size

    def __len__(self):
        return len(self.data)

    def __call__(self, sample_info):
        if sample_info.iteration >= self.num_batches:
            raise StopIteration()
        order = np.random.default_rng(seed=sample_info.epoch_idx).permutation(len(self.data))
        return self.data[order[sample_info.idx_in_epoch]], np.array([sample_info.epoch_idx])


class Dataset:
    def __init__(self, data, batch_size, device, num_workers=2):
        self.data = data
        self.batch_size = batch_size
        self.device = device
        self.num_workers = num_workers
        self.pipe = self._create_pipeline()

    def _create_pipeline(self):
        def pipe_steps(*, batch_size=self.batch_size, device_id=self.device.index):
            if ndd.get_num_threads() < 2:
                ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4
            source = Source(self.data, self.batch_size)
            self.length = len(source) // self.batch_size
            source_2 = source
            source_2 = source_2() if inspect.isgeneratorfunction(source_2) else source_2
            source_2_next = iter(source_2).__next__ if hasattr(source_2, '__iter__') else None
            source_2_takes_info = source_2_next is None and len(inspect.signature(source_2).parameters) > 0

            def steps(epoch_idx=0):
                with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
                    source_2_step = 0  # the iteration in the epoch, as pipeline mode counted it
                    while True:
                        try:
                            x, epoch = [list(output) for output in zip(*[source_2_next() if source_2_next else source_2(SampleInfo(source_2_step * batch_size + i, i, source_2_step, epoch_idx)) if source_2_takes_info else source_2() for i in range(batch_size)])]
                        except StopIteration:
                            return  # the epoch ends: pipe.run() raised StopIteration until pipe.reset()
                        source_2_step += 1
                        x = ndd.as_batch(x)
                        epoch = ndd.as_batch(epoch)
                        if self.device.type == "cuda":
                            x = x.gpu()
                        yield x, epoch

            return ReaderStream(steps(), {}, batch_size, restart=steps)
        pipe = pipe_steps()
        return pipe

    def __len__(self):
        return self.length

    def __iter__(self):
        self.pipe.reset()
        return EpochIterator([self.pipe], ["x", "epoch"], size=-1)
