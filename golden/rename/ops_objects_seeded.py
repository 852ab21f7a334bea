"""Seeded ops objects made outside the pipeline's definition. One with its own seed= becomes a callable that makes its
RNG once, where the object was made (a keyword default); the pipeline's other random ops draw from RNG objects too.
Objects made in a loop from the loop's variable would read its last value at each call as lambdas: they stay
(marked), and so does the pipeline that calls them."""

from nvidia.dali import fn, ops, pipeline_def

jitter = ops.random.Uniform(range=(0.9, 1.1), seed=7)
turns = []
for angle in (90, 180):
    turns.append(ops.Rotate(angle=angle))


@pipeline_def(batch_size=8, num_threads=2, device_id=0, seed=3)
def train(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    return images * jitter(), fn.random.coin_flip(), labels


@pipeline_def(batch_size=8, num_threads=2, device_id=0)
def turned(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    return [turn(images) for turn in turns], labels
