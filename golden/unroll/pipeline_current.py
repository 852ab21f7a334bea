"""Pipeline.current() read inside a @pipeline_def body: device_id, batch_size, max_batch_size and num_threads
are the generator's own parameters; where that name means something else in the body, or for seed, it stays
marked."""

from nvidia.dali import Pipeline, fn, pipeline_def


@pipeline_def(num_threads=2)
def per_gpu(root, num_gpus):
    # each GPU reads its own shard
    device_id = Pipeline.current().device_id
    jpegs, labels = fn.readers.file(file_root=root, shard_id=device_id, num_shards=num_gpus)
    return fn.decoders.image(jpegs, device="mixed"), labels


@pipeline_def
def sized(root):
    size = Pipeline.current().max_batch_size
    jpegs, labels = fn.readers.file(file_root=root, initial_fill=Pipeline.current().batch_size * 4)
    return labels + size, labels * Pipeline.current().num_threads


@pipeline_def(batch_size=4, num_threads=2)
def shadowed(root, batch_size=8):
    jpegs, labels = fn.readers.file(file_root=root)
    return labels + Pipeline.current().batch_size


pipes = [per_gpu("/data", 2, batch_size=4, device_id=d) for d in range(2)]
other = sized("/data", batch_size=2, num_threads=n_threads)
third = shadowed("/data")
