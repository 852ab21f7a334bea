"""Graph parts written as functions: a reader function (parameters, a default, keywords) used by two
pipelines, and a helper with a seeded random op called twice in one pipeline."""

import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


def jitter(images, *, rng):
    angle = ndd.random.uniform(range=(-10.0, 10.0), rng=rng, batch_size=images.batch_size)  # one angle per sample, reproducible
    return ndd.rotate(images, angle=angle, fill_value=0)


def train_pipe(shard, *, batch_size=4, seed=None):
    rng_1 = ndd.random.RNG(seed=7)
    rng_2 = ndd.random.RNG(seed=7)
    reader = ndd.readers.File(file_root="images", shard_id=shard, num_shards=4, name="Reader")
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs)
            yield jitter(images, rng=rng_1), jitter(images, rng=rng_2), labels


def eval_pipe(*, batch_size=4, seed=None):
    reader = ndd.readers.File(file_root="images", shard_id=0, num_shards=2, name="Reader", max_batch_size=batch_size)

    @Prefetch(depth=2)
    def steps():
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield ndd.decoders.image(jpegs), labels

    return ReaderStream(steps(), {"Reader": reader}, batch_size)


pipe = train_pipe(1)
first, second, labels = next(pipe)
other = eval_pipe()
print(other.epoch_size("Reader"))
