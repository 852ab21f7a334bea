"""A plain loader class (not an iterator subclass) that hands whatever it is given to DALIGenericIterator with
*args/**kwargs, as training repos wrap the plugin to reshape its output; its pipelines are Pipeline subclasses
whose base class holds define_graph and whose subclasses create the reader in their own __init__."""

import argparse

import torch

import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali import pipeline_def
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


class PairLoader:
    """(small, large) float tensors in NCHW per step, scaled to [0, 1]."""

    def __init__(self, *args, **kwargs):
        self.inner = DALIGenericIterator(*args, **kwargs)

    def __iter__(self):
        return self

    def __next__(self):
        step = next(self.inner)
        small, large = step[0]["small"], step[0]["large"]
        small = small.to(torch.float).div(255).permute(0, 3, 1, 2)
        large = large.to(torch.float).div(255).permute(0, 3, 1, 2)
        return small, large

    @property
    def size(self):
        return self.inner._size

    def __len__(self):
        return self.inner._size // self.inner.batch_size

    def reset(self):
        self.inner.reset()


class ScalePipeline(Pipeline):
    """The graph; a subclass says where the images come from (self.input)."""

    def __init__(self, batch_size, num_threads, device_id, side, factor):
        super().__init__(batch_size, num_threads, device_id)
        self.decode = ops.decoders.Image(device="mixed", output_type=types.RGB)
        self.crop = ops.Crop(crop=(side, side))
        self.shrink = ops.Resize(resize_x=side // factor, resize_y=side // factor)

    def define_graph(self):
        jpegs, _labels = self.input(name="Reader")
        large = self.crop(self.decode(jpegs))
        small = self.shrink(large)
        return [small, large]


class FolderPipeline(ScalePipeline):
    def __init__(self, *, batch_size, num_threads, device_id, side, factor, data_dir, shard_id=0, num_shards=1):
        super().__init__(batch_size, num_threads, device_id, side, factor)
        self.input = ops.readers.File(file_root=data_dir, shard_id=shard_id, num_shards=num_shards)


class PaddedFolderPipeline(ScalePipeline):
    def __init__(self, *, batch_size, num_threads, device_id, side, factor, data_dir):
        super().__init__(batch_size, num_threads, device_id, side, factor)
        self.input = ops.readers.File(file_root=data_dir, pad_last_batch=True)


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def gray_pairs(root):
    jpegs, _labels = fn.readers.file(file_root=root)
    large = fn.resize(fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY), resize_x=8, resize_y=8)
    return fn.resize(large, resize_x=4, resize_y=4), large


def show(name, loader, epochs=2):
    for epoch in range(epochs):
        seen = []
        for small, large in loader:
            seen.append((tuple(small.shape), tuple(large.shape), round(float(small.sum()), 3),
                         round(float(large.sum()), 3)))
        print(name, "epoch", epoch, "len", len(loader), "size", loader.size, seen)
        loader.reset()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("images")
    args = parser.parse_args()

    train = FolderPipeline(batch_size=3, num_threads=2, device_id=0, side=16, factor=4, data_dir=args.images)
    train.build()
    show("positional", PairLoader([train], ["small", "large"], size=train.epoch_size("Reader")))

    val = PaddedFolderPipeline(batch_size=4, num_threads=2, device_id=0, side=12, factor=2, data_dir=args.images)
    val.build()
    show("keywords", PairLoader(pipelines=[val], output_map=["small", "large"], size=int(val.epoch_size("Reader") / 1)))

    # a @pipeline_def pipeline, alone (not in a list), with a policy: nothing but the wrapper asks it anything
    show("function", PairLoader(gray_pairs(args.images), ["small", "large"], 10,
                                last_batch_policy=LastBatchPolicy.PARTIAL))


if __name__ == "__main__":
    main()
