import sys

from nvidia.dali import fn, pipeline_def, types

from loader import ShardedLoader


@pipeline_def(batch_size=2, num_threads=2, device_id=0, prefetch_queue_depth=2)
def shard_pipe(root, shard_id, num_shards):
    jpegs, labels = fn.readers.file(file_root=root, shard_id=shard_id, num_shards=num_shards, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    return fn.resize(images, resize_x=6, resize_y=6), labels


if __name__ == "__main__":
    pipes = [shard_pipe(sys.argv[1], shard_id=i, num_shards=2) for i in range(2)]
    loader = ShardedLoader(pipes)
    print("batches per epoch", len(loader), "batch size", loader.batch_size)
    for step in range(len(loader)):
        for shard, (images, labels) in enumerate(next(loader)):
            print(f"step {step} shard {shard}: {images.shape} sum {int(images.sum())} labels {labels.ravel().tolist()}")
