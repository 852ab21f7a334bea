"""Training and evaluation over the project's loaders module: the pipelines are made here and handed to a
DALIGenericIterator subclass, a DALIClassificationIterator subclass and a factory function there."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.plugin.pytorch import LastBatchPolicy

from loaders import EvalLoader, TrainLoader, make_loader


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def gray_pipe(root, shard_id=0, num_shards=1, pad=False):
    jpegs, labels = fn.readers.file(file_root=root, shard_id=shard_id, num_shards=num_shards, pad_last_batch=pad,
                                    name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    return fn.resize(images, resize_x=6, resize_y=5), labels


def show(name, loader, epochs=2):
    for epoch in range(epochs):
        seen = []
        for images, labels in loader:
            seen.append((tuple(images.shape), str(images.dtype), int(images.double().sum()), labels.view(-1).tolist()))
        print(name, "epoch", epoch, "len", len(loader), "size", loader.size, seen)
        loader.reset()


if __name__ == "__main__":
    root = sys.argv[1]
    show("train", TrainLoader(gray_pipe(root), 10, last_batch_policy=LastBatchPolicy.DROP))

    evaluation = EvalLoader(gray_pipe(root, pad=True), reader_name="Reader",
                            last_batch_policy=LastBatchPolicy.PARTIAL)
    show("eval", evaluation)

    sharded = make_loader([gray_pipe(root, shard_id=k, num_shards=2) for k in range(2)])
    for epoch in range(3):
        steps = [[(k, int(np.asarray(out["images"]).sum()), out["labels"].view(-1).tolist())
                  for k, out in enumerate(step)] for step in sharded]
        print("sharded epoch", epoch, "len", len(sharded), steps)
        sharded.reset()
