"""A pipeline built only from another module's graph parts; that module is not part of this run."""

import graph_parts
from graph_parts import jitter
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


@Prefetch(depth=2)
def train(root, *, batch_size=8, seed=5):
    ndd.random.set_seed(seed)
    size = graph_parts.size_of(root)  # plain Python: only an operator's keyword gets it
    source = graph_parts.shuffled_arrays(root, "*.npy", batch_size=batch_size, seed=seed)
    while True:
        arrays, masks = next(source)
        rotated, frame = jitter(arrays, [size, size])
        yield ndd.resize(rotated, size=size), masks, frame


def main(root):
    pipe = train(root)
    return next(pipe)
