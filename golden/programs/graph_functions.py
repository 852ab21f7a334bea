"""Graph parts written as functions: a reader function (parameters, a default, keywords) used by two
pipelines, and a helper with a seeded random op called twice in one pipeline."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def



def sharded_reader(shard, shards=2, *, root="images"):
    """The training files of one shard."""
    return fn.readers.file(file_root=root, shard_id=shard, num_shards=shards, name="Reader")


def jitter(images):
    angle = fn.random.uniform(range=(-10.0, 10.0), seed=7)  # one angle per sample, reproducible
    return fn.rotate(images, angle=angle, fill_value=0)


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def train_pipe(shard):
    jpegs, labels = sharded_reader(shard, shards=4)
    images = fn.decoders.image(jpegs)
    return jitter(images), jitter(images), labels


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def eval_pipe():
    jpegs, labels = sharded_reader(0)
    return fn.decoders.image(jpegs), labels


pipe = train_pipe(1)
pipe.build()
first, second, labels = pipe.run()
other = eval_pipe()
other.build()
print(other.epoch_size("Reader"))
