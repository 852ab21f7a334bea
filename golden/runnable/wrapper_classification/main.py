"""A loader class that hands whatever it is given to DALIClassificationIterator with *args/**kwargs (as training
repos wrap the plugin to turn its {"data", "label"} dicts into (images, labels) pairs), called with the pipelines
by position and the size by position, by keywords with reader_name= and a policy, and with a list of two sharded
pipelines; two epochs each."""

import argparse

import torch
from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy


class PairLoader:
    def __init__(self, *args, **kwargs):
        self.inner = DALIClassificationIterator(*args, **kwargs)

    def __iter__(self):
        return self

    def __next__(self):
        step = next(self.inner)
        images = torch.cat([part["data"] for part in step]).to(torch.float).div(255)
        labels = torch.cat([part["label"] for part in step]).ravel()
        return images, labels

    def __len__(self):
        return self.inner._size

    def reset(self):
        self.inner.reset()


@pipeline_def(batch_size=3, num_threads=2, device_id=0)
def gray(root, shard_id=0, num_shards=1):
    jpegs, labels = fn.readers.file(file_root=root, shard_id=shard_id, num_shards=num_shards, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    return fn.resize(images, resize_x=8, resize_y=8), labels


def show(name, loader, epochs=2):
    print(name, "size", len(loader))
    for epoch in range(epochs):
        for step, (images, labels) in enumerate(loader):
            print(f"{name} {epoch}.{step}: {tuple(images.shape)} mean {images.mean().item():.4f} labels {labels.tolist()}")
        loader.reset()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("images")
    args = parser.parse_args()
    show("positional", PairLoader([gray(args.images)], 10))
    show("keywords", PairLoader(pipelines=gray(args.images), reader_name="Reader",
                                last_batch_policy=LastBatchPolicy.PARTIAL))
    shards = [gray(args.images, shard_id=k, num_shards=2) for k in range(2)]
    show("sharded", PairLoader(shards, reader_name="Reader", last_batch_policy=LastBatchPolicy.DROP))


if __name__ == "__main__":
    main()
