import sys

from nvidia.dali import fn, pipeline_def

from dali_iter import DaliIterator, SharedIterator, batch_count


@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def reader_pipe(root, shard_id=0, num_shards=1):
    jpegs, labels = fn.readers.file(file_root=root, shard_id=shard_id, num_shards=num_shards, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed")
    return fn.resize(images, resize_x=5, resize_y=4), labels


if __name__ == "__main__":
    root = sys.argv[1]
    loader = DaliIterator([reader_pipe(root, shard_id=s, num_shards=2) for s in range(2)])
    print("steps", len(loader), "size", loader.size, "batch", loader.batch_size)
    for epoch in range(2):
        for step, batches in enumerate(loader):
            for shard, (images, labels) in enumerate(batches):
                print(epoch, step, shard, tuple(images.shape), images.dtype, int(images.sum()), labels.view(-1).tolist())
    one = reader_pipe(root, shard_id=1, num_shards=2)
    print("batch count", batch_count(one, "Reader"))
    for step, outs in enumerate(SharedIterator([one, reader_pipe(root)], 4)):
        for i, (images, labels) in enumerate(outs):
            print("shared", step, i, tuple(images.shape), images.dtype, int(images.sum()), labels.view(-1).tolist())
