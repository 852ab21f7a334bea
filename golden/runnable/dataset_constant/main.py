"""A climate-style dataset class whose __init__ wraps a grid computed at run time (np.stack of a meshgrid: float64,
or int64 when asked) in dali.types.Constant and keeps it on self; the pipeline its factory method builds adds the
grid to each sample and concatenates it with the sample (fn.cat); per-sample callable source, reset() and a new
DALIGenericIterator each epoch. The printed dtypes show the type pipeline mode gave the constant."""

import glob
import os
import sys

import numpy as np
import nvidia.dali as dali
import nvidia.dali.plugin.pytorch as dali_pth


class GridSource:
    def __init__(self, files, batch_size):
        self.files = files
        self.num_batches = len(files) // batch_size

    def __call__(self, sample_info):
        if sample_info.iteration >= self.num_batches:
            raise StopIteration()
        array = np.load(self.files[sample_info.idx_in_epoch])
        return array, np.rint(array).astype(np.int32)


class GridDataset:
    def __init__(self, root, batch_size, integer_grid=False):
        self.files = sorted(glob.glob(os.path.join(root, "*.npy")))
        self.batch_size = batch_size
        lat = np.linspace(-90.0, 90.0, 4)
        lon = np.linspace(0.0, 360.0, 5, endpoint=False)
        self.data_latlon = np.stack(np.meshgrid(lat, lon, indexing="ij"))[0]
        if integer_grid:
            self.data_latlon = self.data_latlon.astype(np.int64)
        self.latlon_dali = dali.types.Constant(self.data_latlon)
        self.pipe = self._create_pipeline()

    def _create_pipeline(self):
        pipe = dali.Pipeline(batch_size=self.batch_size, num_threads=2, device_id=None)
        with pipe:
            values, rounded = dali.fn.external_source(GridSource(self.files, self.batch_size), num_outputs=2,
                                                      batch=False)
            shifted = rounded + self.latlon_dali
            joined = dali.fn.cat(values, self.latlon_dali * 0.5, axis=0)
            pipe.set_outputs(shifted, joined)
        return pipe

    def __iter__(self):
        self.pipe.reset()
        return dali_pth.DALIGenericIterator([self.pipe], ["shifted", "joined"])


if __name__ == "__main__":
    for integer_grid in (False, True):
        dataset = GridDataset(sys.argv[1], 2, integer_grid=integer_grid)
        for epoch in range(2):
            for step, batch in enumerate(dataset):
                out = batch[0]
                print(f"{'int' if integer_grid else 'float'} grid, epoch {epoch} step {step}: shifted "
                      f"{out['shifted'].dtype} {tuple(out['shifted'].shape)} {out['shifted'].sum().item():.2f} "
                      f"joined {out['joined'].dtype} {tuple(out['joined'].shape)} {out['joined'].sum().item():.2f}")
