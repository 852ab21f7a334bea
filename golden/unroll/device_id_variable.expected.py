"""device_id from a variable, as multi-GPU training scripts write it: each pipeline runs on the GPU its
device_id names (None at run time: a CPU-only run, nothing is selected)."""

import argparse

import contextlib
import numpy as np
from nvidia.dali import types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import EpochIterator, Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


def create_dali_pipeline(data_dir, crop, shard_id, num_shards, dali_cpu=False, *, batch_size, device_id=None, seed=None):
    reader = ndd.readers.File(file_root=data_dir, shard_id=shard_id, num_shards=num_shards,
                                    random_shuffle=True, pad_last_batch=True, name="Reader", seed=seed, max_batch_size=batch_size)

    @Prefetch(depth=2)
    def steps():
        with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
            while True:
                for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                    images = ndd.decoders.image(jpegs, device="cpu" if dali_cpu else "gpu", output_type=types.RGB)
                    images = ndd.resize(images, resize_x=crop, resize_y=crop)
                    yield images, labels

    return ReaderStream(steps(), {"Reader": reader}, batch_size)


def second_gpu(data_dir, *, batch_size=2, device_id=1):
    with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
        reader = ndd.readers.File(file_root=data_dir)
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield ndd.decoders.image(jpegs, device="gpu"), labels


def own_parameter(data_dir, device_id, *, batch_size=2):
    reader = ndd.readers.File(file_root=data_dir, shard_id=device_id, num_shards=2)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield ndd.decoders.image(jpegs, device="gpu"), labels


def per_gpu(data_dir, num_gpus, *, batch_size=2, device_id=None):
    reader = ndd.readers.File(file_root=data_dir, shard_id=device_id, num_shards=num_gpus,
                                    name="Reader", max_batch_size=batch_size)

    @Prefetch(depth=2)
    def steps():
        with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
            while True:
                for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                    yield ndd.decoders.image(jpegs, device="gpu"), labels

    return ReaderStream(steps(), {"Reader": reader}, batch_size)


def gpu_reader(data_dir, *, batch_size=2, device_id=None):
    with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
        reader = ndd.readers.Numpy(file_root=data_dir, device="gpu", name="Arrays", max_batch_size=batch_size)

    def steps():
        with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
            while True:
                for (arrays,) in reader.next_epoch(batch_size=batch_size):
                    yield (arrays * 2,)

    return ReaderStream(steps(), {"Arrays": reader}, batch_size)


def make_with_block(data_dir, batch_size, num_threads, local_rank):
    def pipe_steps(*, batch_size=batch_size, num_threads=num_threads, device_id=local_rank):
        with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
            if num_threads is not None and num_threads > ndd.get_num_threads():
                ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            reader = ndd.readers.File(file_root=data_dir)
            while True:
                for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                    yield ndd.decoders.image(jpegs, device="gpu"), labels
    pipe = pipe_steps()
    return pipe


class Trainer:
    def __init__(self, data_dir, device):
        self.pipe = second_gpu(data_dir, device_id=device.index)

    def first(self):
        return next(self.pipe)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--local_rank", type=int, default=0)
    parser.add_argument("--world_size", type=int, default=1)
    parser.add_argument("--gpus", type=int, default=1)
    args = parser.parse_args()
    pipe = create_dali_pipeline(batch_size=4, device_id=args.local_rank, seed=12 + args.local_rank,
                                data_dir=args.data, crop=8, shard_id=args.local_rank, num_shards=args.world_size)
    train_loader = EpochIterator(pipe, ["data", "label"], reader_name="Reader", last_batch_policy="PARTIAL")
    for data in train_loader:
        print(data[0]["label"].view(-1).tolist())
    other = second_gpu(args.data, device_id=args.local_rank % args.gpus)
    print(np.array(ndd.as_tensor(next(other)[1])).ravel().tolist())
    sharded = own_parameter(args.data, device_id=args.local_rank)  # the function's own argument
    print(np.array(ndd.as_tensor(next(sharded)[1])).ravel().tolist())
    block = make_with_block(args.data, 2, 2, args.local_rank)
    print(np.array(ndd.as_tensor(next(block)[1])).ravel().tolist())
    arrays = gpu_reader(args.data, device_id=args.local_rank)
    print(arrays.epoch_size("Arrays"), np.array(ndd.as_tensor(next(arrays)[0].cpu())).sum())
    # several pipelines on several GPUs behind one iterator: one dict per pipeline each step
    pipes = [per_gpu(args.data, args.gpus, device_id=gpu) for gpu in range(args.gpus)]
    for data in EpochIterator(pipes, ["images", "labels"], reader_name="Reader"):
        print([d["labels"].view(-1).tolist() for d in data])


if __name__ == "__main__":
    main()
