"""A dataset class (not a Pipeline subclass) whose factory method builds its pipeline into self.pipe, fed by a
per-sample callable that ends each epoch with StopIteration (parallel=True, worker processes); __iter__ resets the
pipeline and returns a new DALIGenericIterator each epoch. The reset() stays: the migrated pipeline restarts
its source's steps there with the next epoch_idx."""

import numpy as np
import nvidia.dali as dali
import nvidia.dali.plugin.pytorch as dali_pth


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
        pipe = dali.Pipeline(batch_size=self.batch_size, num_threads=2, prefetch_queue_depth=2,
                             py_num_workers=self.num_workers, device_id=self.device.index, py_start_method="spawn")
        with pipe:
            source = Source(self.data, self.batch_size)
            self.length = len(source) // self.batch_size
            x, epoch = dali.fn.external_source(source, num_outputs=2, parallel=True, batch=False)
            if self.device.type == "cuda":
                x = x.gpu()
            pipe.set_outputs(x, epoch)
        return pipe

    def __len__(self):
        return self.length

    def __iter__(self):
        self.pipe.reset()
        return dali_pth.DALIGenericIterator([self.pipe], ["x", "epoch"])
