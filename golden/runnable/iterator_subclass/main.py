"""A training loop that wants (images, labels) pairs, not the iterator's list of dicts: subclasses of the
PyTorch iterators reshape each step, as a PyTorch Lightning data module does.

The loop below stands in for the trainer: it sums what it is given, epoch by epoch, and the loader resets
itself (auto_reset)."""

import argparse

import torch

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, DALIGenericIterator, LastBatchPolicy


@pipeline_def
def digits_pipeline(data_dir, device, shard_id=0, num_shards=1):
    jpegs, labels = fn.readers.file(file_root=data_dir, shard_id=shard_id, num_shards=num_shards,
                                    random_shuffle=True, seed=5, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed" if device == "gpu" else "cpu", output_type=types.GRAY)
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, crop=(8, 8), mean=[128.0], std=[64.0],
                                      output_layout="CHW")
    if device == "gpu":
        labels = labels.gpu()
    # the loss expects int64 labels
    labels = fn.cast(labels, dtype=types.INT64)
    return images, labels


class LightningWrapper(DALIClassificationIterator):
    def __init__(self, *kargs, **kvargs):
        super().__init__(*kargs, **kvargs)

    def __next__(self):
        out = super().__next__()
        # one pipeline per process: its dict, as a list in output_map order, labels squeezed
        out = out[0]
        return [out[k] if k != "label" else torch.squeeze(out[k], -1) for k in self.output_map]


class Pairs(DALIGenericIterator):
    def __next__(self):
        step = super().__next__()
        return tuple(torch.cat([d[name] for d in step]) for name in self.output_map)

    def samples_per_epoch(self):
        return len(self) * self.batch_size * 2


def fit(loader, epochs):
    for epoch in range(epochs):
        total, count, seen = 0.0, 0, []
        for images, labels in loader:
            total += float(images.sum())
            count += images.shape[0]
            seen.append(labels.tolist())
        print(f"epoch {epoch}: {count} samples, {len(loader)} steps, labels {seen}, pixel sum {total:.3f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--device", default="gpu")
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()

    pipe = digits_pipeline(batch_size=4, device=args.device, device_id=0, data_dir=args.data, num_threads=2)
    loader = LightningWrapper(pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True)
    print(f"batch size {loader.batch_size}, outputs {loader.output_map}")
    fit(loader, args.epochs)

    pipes = [digits_pipeline(data_dir=args.data, device=args.device, shard_id=shard, num_shards=2, batch_size=3,
                             num_threads=2, device_id=0) for shard in range(2)]
    pairs = Pairs(pipes, ["images", "labels"], reader_name="Reader", auto_reset=True)
    print(f"at most {pairs.samples_per_epoch()} samples per epoch")
    fit(pairs, args.epochs)


if __name__ == "__main__":
    main()
