"""A dataset class over a parallel per-sample source, as physics and climate data loaders write it: __init__
stores the pipeline a factory method builds (self.pipe = self._create_pipeline()), the method fills
dali.Pipeline(py_num_workers=..., py_start_method="spawn") in `with pipe:` with a callable source object
(batch=False, parallel=True) that ends each epoch with StopIteration and reshuffles by sample_info.epoch_idx,
and __iter__ resets the pipeline and returns a new DALIGenericIterator every epoch."""

import glob
import os
import sys

import numpy as np
import nvidia.dali as dali
import nvidia.dali.plugin.pytorch as dali_pth
import torch


class ArraySource:
    """Per-sample callable: the pipeline calls it in worker processes, so it must pickle."""

    def __init__(self, files, batch_size):
        self.files = files
        self.batch_size = batch_size
        self.num_batches = len(files) // batch_size
        self.indices = np.arange(len(files))
        self.last_epoch = None

    def __len__(self):
        return len(self.files)

    def __call__(self, sample_info):
        if sample_info.iteration >= self.num_batches:
            raise StopIteration()
        if self.last_epoch != sample_info.epoch_idx:  # a new epoch: a new order, the same in every worker
            self.indices = np.random.default_rng(seed=sample_info.epoch_idx).permutation(len(self.files))
            self.last_epoch = sample_info.epoch_idx
        index = self.indices[sample_info.idx_in_epoch]
        array = np.load(self.files[index])
        return array[0], array[1:].sum(axis=0), np.array([index, sample_info.epoch_idx], dtype=np.int64)


class ArrayDataset:
    def __init__(self, root, batch_size, device, num_workers=2, stats_dir=None):
        self.files = sorted(glob.glob(os.path.join(root, "*.npy")))
        self.batch_size = batch_size
        self.device = device
        self.num_workers = num_workers
        self.stats_dir = stats_dir
        stacked = np.stack([np.load(f)[1:].sum(axis=0) for f in self.files])
        self.mu = stacked.mean(axis=0)
        self.sd = stacked.std(axis=0)
        self.pipe = self._create_pipeline()

    def _create_pipeline(self):
        pipe = dali.Pipeline(
            batch_size=self.batch_size,
            num_threads=2,
            prefetch_queue_depth=2,
            py_num_workers=self.num_workers,
            device_id=self.device.index,
            py_start_method="spawn",
        )
        with pipe:
            source = ArraySource(self.files, self.batch_size)
            self.length = len(source) // self.batch_size
            first, rest, info = dali.fn.external_source(source, num_outputs=3, parallel=True, batch=False)
            if self.device.type == "cuda":
                first = first.gpu()
                rest = rest.gpu()
            if self.stats_dir is not None:
                rest = dali.fn.normalize(rest, mean=self.mu, stddev=self.sd)
            pipe.set_outputs(first, rest, info)
        return pipe

    def __len__(self):
        return self.length

    def __iter__(self):
        self.pipe.reset()
        return dali_pth.DALIGenericIterator([self.pipe], ["first", "rest", "info"])


if __name__ == "__main__":
    for stats_dir in (None, "stats"):
        dataset = ArrayDataset(sys.argv[1], 2, torch.device("cpu"), stats_dir=stats_dir)
        print("stats" if stats_dir else "raw", "len", len(dataset))
        for epoch in range(3):
            for step, batch in enumerate(dataset):
                out = batch[0]
                print(f"  epoch {epoch} step {step}: first {tuple(out['first'].shape)} {out['first'].sum().item():.3f} "
                      f"rest {out['rest'].dtype} {out['rest'].sum().item():.3f} info {out['info'].tolist()}")
