"""Feeding a PyTorch loop through DALIGenericIterator, with a partial last batch, for two epochs."""

import argparse

import torch
from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=31, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
    images = fn.resize(images, resize_x=8, resize_y=8)
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                      mean=[127.5] * 3, std=[127.5] * 3)
    return images, labels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()
    pipe = train_pipe(args.data)
    pipe.build()
    loader = DALIGenericIterator([pipe], ["images", "labels"], reader_name="Reader",
                                 last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True)
    for epoch in range(args.epochs):
        total = 0
        for i, data in enumerate(loader):
            images = data[0]["images"]
            labels = data[0]["labels"].squeeze(-1).long()
            total += images.shape[0]
            print(f"epoch {epoch} batch {i}: {tuple(images.shape)} {images.dtype} "
                  f"mean {images.mean().item():.5f} labels {labels.tolist()}")
        print(f"epoch {epoch}: {total} samples")


if __name__ == "__main__":
    main()
