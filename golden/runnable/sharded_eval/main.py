"""Data-parallel evaluation simulated in one process: one pipeline per shard, padded last batch."""

import argparse

import numpy as np
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(num_threads=2, device_id=0)
def shard_pipeline(root, shard_id, num_shards):
    jpegs, labels = fn.readers.file(file_root=root, shard_id=shard_id, num_shards=num_shards,
                                    pad_last_batch=True, stick_to_shard=True, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed")
    images = fn.resize(images, resize_x=4, resize_y=4)
    return images, labels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--shards", type=int, default=3)
    args = parser.parse_args()
    pipes = []
    for shard in range(args.shards):
        pipe = shard_pipeline(args.data, shard, args.shards, batch_size=2)
        pipe.build()
        pipes.append(pipe)
    meta = pipes[0].reader_meta("Reader")
    print("epoch size", meta["epoch_size"], "padded", meta["epoch_size_padded"])
    per_shard = int(np.ceil(meta["epoch_size_padded"] / args.shards / 2))
    for shard, pipe in enumerate(pipes):
        labels_seen = []
        for _ in range(per_shard):
            _, labels = pipe.run()
            labels_seen += labels.as_array().ravel().tolist()
        print(f"shard {shard}: {per_shard} batches labels {labels_seen}")


if __name__ == "__main__":
    main()
