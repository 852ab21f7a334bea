"""Training-script progress from the DALI iterator's own counts, as NVIDIA's ResNet-50 example prints it."""

import argparse
import math

import torch
from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy


@pipeline_def
def create_pipeline(data_dir, size, is_training):
    images, labels = fn.readers.file(file_root=data_dir, random_shuffle=is_training, seed=7,
                                     pad_last_batch=False, name="Reader")
    images = fn.decoders.image(images, device="mixed", output_type=types.GRAY)
    images = fn.resize(images, resize_x=size, resize_y=size)
    return images, labels


def train(loader, epoch, batch_size):
    loader_len = int(math.ceil(loader._size / batch_size))
    total = 0.0
    for i, data in enumerate(loader):
        images = data[0]["data"].float()
        total += images.mean().item()
        print(f"train epoch {epoch} [{i + 1}/{loader_len}] batch {images.shape[0]} "
              f"labels {data[0]['label'].view(-1).tolist()}")
    return total


def validate(loader, batch_size):
    loader_len = int(loader._size / batch_size)
    seen = 0
    for i, data in enumerate(loader):
        seen += data[0]["data"].shape[0]
        print(f"  val [{i + 1}/{loader_len}] of len {len(loader)}: {data[0]['label'].view(-1).tolist()}")
    loader.reset()
    return seen


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=4)
    args = parser.parse_args()

    pipe = create_pipeline(batch_size=args.batch_size, num_threads=2, device_id=0,
                           data_dir=args.data, size=6, is_training=True)
    pipe.build()
    train_loader = DALIClassificationIterator(pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL,
                                              auto_reset=True)
    pipe = create_pipeline(batch_size=3, num_threads=2, device_id=0, data_dir=args.data, size=6, is_training=False)
    pipe.build()
    val_loader = DALIClassificationIterator(pipe, reader_name="Reader")

    for epoch in range(args.epochs):
        total = train(train_loader, epoch, args.batch_size)
        print(f"epoch {epoch}: train sum of means {total:.4f}, size {train_loader.size}")
        seen = validate(val_loader, 3)
        print(f"epoch {epoch}: validated {seen} samples, next size {val_loader._size}")


if __name__ == "__main__":
    main()
