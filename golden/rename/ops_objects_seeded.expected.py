"""Seeded ops objects made outside the pipeline's definition. One with its own seed= becomes a callable that makes its
RNG once, where the object was made (a keyword default); the pipeline's other random ops draw from RNG objects too.
Objects made in a loop from the loop's variable would read its last value at each call as lambdas: they stay
(marked), and so does the pipeline that calls them."""

from nvidia.dali import fn, ops, pipeline_def
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)

jitter = lambda *inputs, rng=ndd.random.RNG(seed=7), **kwargs: ndd.random.uniform(*inputs, range=(0.9, 1.1), rng=rng, **kwargs)
turns = []
for angle in (90, 180):
    # dali-migrate: DM105 ops.Rotate is pipeline-mode API that was not migrated here: rewrite it with dynamic-mode (ndd) code
    turns.append(ops.Rotate(angle=angle))


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


@Prefetch(depth=2)
def train(root, *, batch_size=8, seed=3):
    rng = ndd.random.RNG(seed=seed)
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs)
            yield images * jitter(batch_size=batch_size), ndd.random.coin_flip(rng=rng, batch_size=batch_size), labels


# dali-migrate: DM230 turned stays in pipeline mode with everything that uses it: line 11: ops.Rotate is pipeline-mode API that was not migrated here: rewrite it with dynamic-mode (ndd) code
@pipeline_def(batch_size=8, num_threads=2, device_id=0)
def turned(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    return [turn(images) for turn in turns], labels
