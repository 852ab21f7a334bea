"""What each rank of a sharded data-parallel run reads, epoch by epoch, through the PyTorch iterator."""

import argparse

from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy


@pipeline_def
def create_pipeline(data_dir, shard_id, num_shards):
    images, labels = fn.readers.file(file_root=data_dir, shard_id=shard_id, num_shards=num_shards, name="Reader")
    images = fn.decoders.image(images, device="mixed", output_type=types.GRAY)
    images = fn.resize(images, resize_x=4, resize_y=4)
    return images, labels


def run_rank(data_dir, rank, shards, epochs):
    pipe = create_pipeline(batch_size=2, num_threads=2, device_id=0, data_dir=data_dir, shard_id=rank,
                           num_shards=shards)
    pipe.build()
    val_loader = DALIClassificationIterator(pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL,
                                            auto_reset=True)
    pipe = create_pipeline(batch_size=2, num_threads=2, device_id=0, data_dir=data_dir, shard_id=rank,
                           num_shards=shards)
    pipe.build()
    train_loader = DALIClassificationIterator(pipe, reader_name="Reader")
    for epoch in range(epochs):
        steps = int(train_loader._size / 2)
        labels = []
        for data in train_loader:
            labels.append(data[0]["label"].view(-1).tolist())
        train_loader.reset()
        print(f"rank {rank} epoch {epoch} train: {steps} steps planned, {len(labels)} read: {labels}")
        pixels = [round(data[0]["data"].float().mean().item(), 3) for data in val_loader]
        print(f"rank {rank} epoch {epoch} val: len {len(val_loader)} size {val_loader.size} means {pixels}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--shards", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    for rank in range(args.shards):
        run_rank(args.data, rank, args.shards, args.epochs)


if __name__ == "__main__":
    main()
