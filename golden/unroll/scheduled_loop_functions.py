"""A training loop in plain functions drives its pipelines by hand (one per GPU): schedule_run() ahead,
share_outputs() each step, the outputs copied into torch tensors, release_outputs() and schedule_run() again."""

import torch
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import feed_ndarray, to_torch_type


@pipeline_def(batch_size=4, num_threads=2, seed=3)
def train_pipe(root, shard_id, num_shards):
    jpegs, labels = fn.readers.file(file_root=root, shard_id=shard_id, num_shards=num_shards, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed")
    return fn.resize(images, resize_x=64, resize_y=64), labels


def copy_out(output):
    tensor = output.as_tensor()
    out = torch.empty(tensor.shape(), dtype=to_torch_type[tensor.dtype], device="cuda")
    feed_ndarray(tensor, out, cuda_stream=torch.cuda.current_stream())
    return out


def train(root, gpus, steps, model):
    pipes = [train_pipe(root, gpu, gpus, device_id=gpu) for gpu in range(gpus)]
    [p.build() for p in pipes]
    [p.schedule_run() for p in pipes]
    for step in range(steps):
        outs = [p.share_outputs() for p in pipes]
        for gpu, (images, labels) in enumerate(outs):
            model(copy_out(images), labels.as_cpu().as_array())
        [p.release_outputs() for p in pipes]
        [p.schedule_run() for p in pipes]


def validate(root, gpus, steps, model):
    pipes = [train_pipe(root, gpu, gpus, device_id=gpu) for gpu in range(gpus)]
    for p in pipes:
        p.build()
    for p in pipes:
        p.schedule_run()
    for step in range(steps):
        for gpu, p in enumerate(pipes):
            images, labels = p.share_outputs()
            model(copy_out(images), labels.as_cpu().as_array())
            p.release_outputs()
            p.schedule_run()
