"""One rank of a data-parallel training script, ResNet-50 style: each pipeline gets the rank's GPU as
device_id, computed from the command line; a CPU-only run (--dali_cpu) has none (device_id=None)."""

import argparse

from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy


@pipeline_def
def create_dali_pipeline(data_dir, crop, shard_id, num_shards, dali_cpu=False, is_training=True):
    jpegs, labels = fn.readers.file(file_root=data_dir, shard_id=shard_id, num_shards=num_shards,
                                    pad_last_batch=True, name="Reader")
    images = fn.decoders.image(jpegs, device="cpu" if dali_cpu else "mixed", output_type=types.GRAY)
    images = fn.resize(images, resize_x=crop, resize_y=crop)
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW", mean=[128.0], std=[64.0],
                                      mirror=1 if is_training else 0)
    return images, labels


def parse():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--local_rank", type=int, default=0)
    parser.add_argument("--world_size", type=int, default=1)
    parser.add_argument("--batch_size", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--dali_cpu", action="store_true")
    return parser.parse_args()


def main():
    args = parse()
    device_id = None if args.dali_cpu else args.local_rank  # no GPU for a CPU-only run
    pipe = create_dali_pipeline(batch_size=args.batch_size, num_threads=args.workers, device_id=device_id,
                                seed=12 + args.local_rank, data_dir=args.data, crop=4, shard_id=args.local_rank,
                                num_shards=args.world_size, dali_cpu=args.dali_cpu, is_training=True)
    pipe.build()
    train_loader = DALIClassificationIterator(pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL)
    pipe = create_dali_pipeline(batch_size=args.batch_size, num_threads=args.workers, device_id=device_id,
                                seed=12 + args.local_rank, data_dir=args.data, crop=4, shard_id=args.local_rank,
                                num_shards=args.world_size, dali_cpu=args.dali_cpu, is_training=False)
    pipe.build()
    val_loader = DALIClassificationIterator(pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL)
    for epoch in range(args.epochs):
        for i, data in enumerate(train_loader):
            images, labels = data[0]["data"], data[0]["label"]
            print(f"epoch {epoch} step {i}: labels {labels.view(-1).tolist()} images {tuple(images.shape)} "
                  f"sum {images.sum().item():.4f} first row {[round(v, 4) for v in images[0, 0, 0].tolist()]}")
        train_loader.reset()
        means = [round(data[0]["data"].mean().item(), 4) for data in val_loader]
        print(f"epoch {epoch} val: {len(val_loader)} steps, size {val_loader.size}, means {means}")
        val_loader.reset()


if __name__ == "__main__":
    main()
