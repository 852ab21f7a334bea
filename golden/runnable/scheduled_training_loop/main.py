import sys

import numpy as np
import torch
from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.plugin.pytorch import feed_ndarray, to_torch_type


@pipeline_def(batch_size=2, num_threads=1, device_id=0, seed=1)
def reader_pipe(root, shard_id, num_shards):
    jpegs, labels = fn.readers.file(file_root=root, shard_id=shard_id, num_shards=num_shards, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
    images = fn.resize(images, resize_x=6, resize_y=5)
    return images, labels


def to_torch(dali_out):
    """One output of a step as a torch tensor, copied with feed_ndarray."""
    tensor = dali_out.as_tensor()
    out = torch.empty(tensor.shape(), dtype=to_torch_type[tensor.dtype])
    feed_ndarray(tensor, out)
    return out


def get_batch(pipes):
    batch = []
    for p in pipes:
        outs = p.share_outputs()
        batch.append([to_torch(o) for o in outs])
        p.release_outputs()
        p.schedule_run()
    return batch


def train(root, gpus=2, steps=3):
    pipes = [reader_pipe(root, shard, gpus) for shard in range(gpus)]
    for p in pipes:
        p.build()
    for p in pipes:
        p.schedule_run()
    print("epoch steps", pipes[0].epoch_size("Reader") // (gpus * pipes[0].max_batch_size))
    step = 0
    while step < steps:
        for gpu, (images, labels) in enumerate(get_batch(pipes)):
            print("train", step, gpu, tuple(images.shape), images.dtype, int(images.sum()), labels.view(-1).tolist())
        step += 1


def evaluate(root, steps=4):
    pipe = reader_pipe(root, 0, 1)
    pipe.build()
    pipe.schedule_run()
    total = 0
    for step in range(steps):
        images, labels = pipe.share_outputs()
        arr = images.as_cpu().as_array()
        total += int(arr.sum())
        print("eval", step, arr.shape, [int(labels.at(i)[0]) for i in range(len(labels))])
        pipe.release_outputs()
        pipe.schedule_run()
    return total


if __name__ == "__main__":
    train(sys.argv[1])
    print("eval total", evaluate(sys.argv[1]))
