"""A Pipeline class hierarchy as segmentation data modules write it: a base class that keeps its keyword
arguments and has a helper method returning an ops reader (files given as kwargs["..."]) and a helper that
finishes the graph under a build-time flag; subclasses that make their reader with it in __init__, one with a
typed constant, a random blend from a module-level helper (coin_flip cast to bool, cond * a + (cond ^ True) * b)
and an early `return` under a build-time flag, one with an ops.Transpose made in __init__. A factory picks the
class from a module-level dict by mode and hands the pipeline to a DALIGenericIterator subclass (reader_name=,
auto_reset, dynamic_shape) whose __next__ takes super().__next__()[0]. Random values are printed only as checks."""

import argparse
import glob
import os

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator


def random_augmentation(probability, augmented, original):
    condition = fn.cast(fn.random.coin_flip(probability=probability), dtype=types.DALIDataType.BOOL)
    neg_condition = condition ^ True
    return condition * augmented + neg_condition * original


class GenericPipeline(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, **kwargs):
        super().__init__(batch_size=batch_size, num_threads=num_threads, device_id=device_id, seed=kwargs["seed"])
        self.kwargs = kwargs
        self.load_to_gpu = kwargs["load_to_gpu"]
        self.patch_size = kwargs["patch_size"]

    def get_reader(self, data):
        return ops.readers.Numpy(files=data, pad_last_batch=True, shard_id=0, num_shards=1, seed=self.kwargs["seed"],
                                 shuffle_after_epoch=self.kwargs["shuffle"])

    def prepare(self, img):
        if self.load_to_gpu:
            img = img.gpu()
        return fn.reshape(img, layout="HW")


class TrainPipeline(GenericPipeline):
    def __init__(self, batch_size, num_threads, device_id, **kwargs):
        super().__init__(batch_size, num_threads, device_id, **kwargs)
        self.input_x = self.get_reader(kwargs["imgs"])
        self.crop_shape = types.Constant(np.array(self.patch_size), dtype=types.INT64)
        self.deterministic = kwargs["deterministic"]

    def noise_fn(self, img):
        return random_augmentation(0.5, img * 2.0, img)

    def define_graph(self):
        img = self.input_x(name="ReaderX")
        img = self.prepare(img)
        if self.deterministic:
            return img, img, self.crop_shape
        augmented = self.noise_fn(img)
        return augmented, img, self.crop_shape


class EvalPipeline(GenericPipeline):
    def __init__(self, batch_size, num_threads, device_id, **kwargs):
        super().__init__(batch_size, num_threads, device_id, **kwargs)
        self.input_x = self.get_reader(kwargs["imgs"])
        self.transpose = ops.Transpose(device="cpu", perm=[1, 0])

    def define_graph(self):
        img = self.input_x(name="ReaderX")
        img = self.prepare(img)
        return self.transpose(img), img, fn.shapes(img)


PIPELINES = {"train": TrainPipeline, "eval": EvalPipeline}


class LightningWrapper(DALIGenericIterator):
    def __init__(self, pipe, **kwargs):
        super().__init__(pipe, **kwargs)

    def __next__(self):
        out = super().__next__()[0]
        return out


def fetch_dali_loader(imgs, batch_size, mode, seed, deterministic=False):
    pipe_kwargs = {"imgs": imgs, "seed": seed, "shuffle": mode == "train", "load_to_gpu": False,
                   "patch_size": [2, 3], "deterministic": deterministic}
    device = None  # a CPU run
    pipe = PIPELINES[mode](batch_size, 2, device, **pipe_kwargs)
    return LightningWrapper(pipe, auto_reset=True, reader_name="ReaderX", output_map=["image", "original", "meta"],
                            dynamic_shape=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("arrays")
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()
    files = sorted(glob.glob(os.path.join(args.arrays, "*.npy")))
    for mode, deterministic in (("train", True), ("train", False), ("eval", False)):
        loader = fetch_dali_loader(files, 4, mode, seed=5, deterministic=deterministic)
        print(mode, deterministic, "batches", len(loader))
        for epoch in range(args.epochs):
            for step, batch in enumerate(loader):
                image, original = batch["image"].numpy(), batch["original"].numpy()
                print(mode, epoch, step, image.shape, image.dtype, round(float(original.sum()), 3),
                      batch["meta"].tolist())
                if mode == "train" and not deterministic:
                    picked = [bool(np.allclose(a, 2.0 * o) or np.allclose(a, o)) for a, o in zip(image, original)]
                    print("each sample is one of the two:", all(picked))
                else:
                    print("image sum", round(float(image.sum()), 3))


if __name__ == "__main__":
    main()
