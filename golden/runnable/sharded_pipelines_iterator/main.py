"""Several pipelines (one per shard, as one per GPU of a node) behind one PyTorch iterator, epoch by epoch:
PARTIAL cuts each pipeline's last batch to what is left of its shard, FILL carries into the next epoch,
and with size= the iterator counts the samples of all pipelines together."""

import argparse

from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, DALIGenericIterator, LastBatchPolicy


@pipeline_def
def shard_pipeline(data_dir, shard_id, num_shards, pad=False):
    jpegs, labels = fn.readers.file(file_root=data_dir, shard_id=shard_id, num_shards=num_shards,
                                    pad_last_batch=pad, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    return fn.resize(images, resize_x=4, resize_y=4), labels


def build(data_dir, shards, batch, pad=False):
    pipes = [shard_pipeline(data_dir, shard_id, shards, pad=pad, batch_size=batch, num_threads=2, device_id=0)
             for shard_id in range(shards)]
    for pipe in pipes:
        pipe.build()
    return pipes


def show(name, loader, epochs, key):
    """Each step: per pipeline, the labels and the pixel sum of each sample (which image it read)."""
    for epoch in range(epochs):
        steps = []
        for data in loader:
            images = loader.output_map[0]
            steps.append([(d[key].view(-1).tolist(), d[images].sum(dim=(1, 2, 3)).tolist()) for d in data])
        print(f"{name} epoch {epoch}: len {len(loader)} size {loader.size} steps {steps}")
        loader.reset()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--shards", type=int, default=3)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=4)
    args = parser.parse_args()

    val = DALIClassificationIterator(build(args.data, args.shards, args.batch), reader_name="Reader",
                                     last_batch_policy=LastBatchPolicy.PARTIAL)
    show("partial", val, args.epochs, "label")
    padded = DALIClassificationIterator(build(args.data, args.shards, args.batch, pad=True), reader_name="Reader",
                                        last_batch_policy=LastBatchPolicy.PARTIAL)
    show("partial padded", padded, args.epochs, "label")
    train = DALIGenericIterator(build(args.data, args.shards, args.batch), ["images", "labels"],
                                reader_name="Reader")
    show("fill", train, args.epochs, "labels")
    dropped = DALIGenericIterator(build(args.data, args.shards, args.batch), ["images", "labels"],
                                  reader_name="Reader", last_batch_policy=LastBatchPolicy.DROP)
    show("drop", dropped, args.epochs, "labels")
    sized = DALIGenericIterator(build(args.data, args.shards, args.batch), ["images", "labels"], size=9,
                                last_batch_policy=LastBatchPolicy.PARTIAL)
    show("size 9", sized, args.epochs, "labels")


if __name__ == "__main__":
    main()
