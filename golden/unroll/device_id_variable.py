"""device_id from a variable, as multi-GPU training scripts write it: each pipeline runs on the GPU its
device_id names (None at run time: a CPU-only run, nothing is selected)."""

import argparse

from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, DALIGenericIterator, LastBatchPolicy


@pipeline_def
def create_dali_pipeline(data_dir, crop, shard_id, num_shards, dali_cpu=False):
    jpegs, labels = fn.readers.file(file_root=data_dir, shard_id=shard_id, num_shards=num_shards,
                                    random_shuffle=True, pad_last_batch=True, name="Reader")
    images = fn.decoders.image(jpegs, device="cpu" if dali_cpu else "mixed", output_type=types.RGB)
    images = fn.resize(images, resize_x=crop, resize_y=crop)
    return images, labels


@pipeline_def(batch_size=2, num_threads=2, device_id=1)
def second_gpu(data_dir):
    jpegs, labels = fn.readers.file(file_root=data_dir)
    return fn.decoders.image(jpegs, device="mixed"), labels


@pipeline_def(batch_size=2, num_threads=2)
def own_parameter(data_dir, device_id):
    jpegs, labels = fn.readers.file(file_root=data_dir, shard_id=device_id, num_shards=2)
    return fn.decoders.image(jpegs, device="mixed"), labels


@pipeline_def(batch_size=2, num_threads=2)
def per_gpu(data_dir, num_gpus):
    jpegs, labels = fn.readers.file(file_root=data_dir, shard_id=Pipeline.current().device_id, num_shards=num_gpus,
                                    name="Reader")
    return fn.decoders.image(jpegs, device="mixed"), labels


@pipeline_def(batch_size=2, num_threads=2)
def gpu_reader(data_dir):
    arrays = fn.readers.numpy(file_root=data_dir, device="gpu", name="Arrays")
    return arrays * 2


def make_with_block(data_dir, batch_size, num_threads, local_rank):
    pipe = Pipeline(batch_size, num_threads, local_rank, seed=42 + local_rank)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=data_dir)
        pipe.set_outputs(fn.decoders.image(jpegs, device="mixed"), labels)
    return pipe


class Trainer:
    def __init__(self, data_dir, device):
        self.pipe = second_gpu(data_dir, device_id=device.index)

    def first(self):
        return self.pipe.run()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--local_rank", type=int, default=0)
    parser.add_argument("--world_size", type=int, default=1)
    parser.add_argument("--gpus", type=int, default=1)
    args = parser.parse_args()
    pipe = create_dali_pipeline(batch_size=4, num_threads=2, device_id=args.local_rank, seed=12 + args.local_rank,
                                data_dir=args.data, crop=8, shard_id=args.local_rank, num_shards=args.world_size)
    pipe.build()
    train_loader = DALIClassificationIterator(pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL)
    for data in train_loader:
        print(data[0]["label"].view(-1).tolist())
    other = second_gpu(args.data, device_id=args.local_rank % args.gpus)
    other.build()
    print(other.run()[1].as_array().ravel().tolist())
    sharded = own_parameter(args.data, device_id=args.local_rank)  # the function's own argument
    sharded.build()
    print(sharded.run()[1].as_array().ravel().tolist())
    block = make_with_block(args.data, 2, 2, args.local_rank)
    block.build()
    print(block.run()[1].as_array().ravel().tolist())
    arrays = gpu_reader(args.data, device_id=args.local_rank)
    arrays.build()
    print(arrays.epoch_size("Arrays"), arrays.run()[0].as_cpu().as_array().sum())
    # several pipelines on several GPUs behind one iterator: one dict per pipeline each step
    pipes = [per_gpu(args.data, args.gpus, device_id=gpu) for gpu in range(args.gpus)]
    for p in pipes:
        p.build()
    for data in DALIGenericIterator(pipes, ["images", "labels"], reader_name="Reader"):
        print([d["labels"].view(-1).tolist() for d in data])


if __name__ == "__main__":
    main()
