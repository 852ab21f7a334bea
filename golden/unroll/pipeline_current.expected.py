"""Pipeline.current() read inside a @pipeline_def body: device_id, batch_size, max_batch_size and num_threads
are the generator's own parameters; where that name means something else in the body, or for seed, it stays
marked."""

import contextlib
from nvidia.dali import Pipeline, fn, pipeline_def
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


@Prefetch(depth=2)
def per_gpu(root, num_gpus, *, batch_size, device_id=None):
    with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
        # each GPU reads its own shard
        reader = ndd.readers.File(file_root=root, shard_id=device_id, num_shards=num_gpus)
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield ndd.decoders.image(jpegs, device="gpu"), labels


@Prefetch(depth=2)
def sized(root, *, batch_size, num_threads=None):
    if num_threads is not None and num_threads > ndd.get_num_threads():
        ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
    size = batch_size
    reader = ndd.readers.File(file_root=root, initial_fill=batch_size * 4)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield labels + size, labels * num_threads


# dali-migrate: DM230 shadowed stays in pipeline mode with everything that uses it: line 26: Pipeline.current is pipeline-mode API that was not migrated here: rewrite it with dynamic-mode (ndd) code
@pipeline_def(batch_size=4, num_threads=2)
def shadowed(root, batch_size=8):
    jpegs, labels = fn.readers.file(file_root=root)
    # dali-migrate: DM105 Pipeline.current is pipeline-mode API that was not migrated here: rewrite it with dynamic-mode (ndd) code
    return labels + Pipeline.current().batch_size


pipes = [per_gpu("/data", 2, batch_size=4, device_id=d) for d in range(2)]
other = sized("/data", batch_size=2, num_threads=n_threads)
third = shadowed("/data")
