"""A training loop in plain functions drives its pipelines by hand (one per GPU): schedule_run() ahead,
share_outputs() each step, the outputs copied into torch tensors, release_outputs() and schedule_run() again."""

import torch
import contextlib
import numpy as np
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


@Prefetch(depth=2)
def train_pipe(root, shard_id, num_shards, *, batch_size=4, device_id=None):
    with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
        reader = ndd.readers.File(file_root=root, shard_id=shard_id, num_shards=num_shards, name="Reader")
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                images = ndd.decoders.image(jpegs, device="gpu")
                yield ndd.resize(images, resize_x=64, resize_y=64), labels


def copy_out(output):
    tensor = ndd.as_tensor(output)
    out = torch.empty(list(tensor.shape), dtype=tensor.torch().dtype, device="cuda")
    out.copy_(tensor.torch())
    return out


def train(root, gpus, steps, model):
    pipes = [train_pipe(root, gpu, gpus, device_id=gpu) for gpu in range(gpus)]
    for step in range(steps):
        outs = [next(p) for p in pipes]
        for gpu, (images, labels) in enumerate(outs):
            model(copy_out(images), np.array(ndd.as_tensor(labels.cpu())))


def validate(root, gpus, steps, model):
    pipes = [train_pipe(root, gpu, gpus, device_id=gpu) for gpu in range(gpus)]
    for step in range(steps):
        for gpu, p in enumerate(pipes):
            images, labels = next(p)
            model(copy_out(images), np.array(ndd.as_tensor(labels.cpu())))
