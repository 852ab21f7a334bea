"""A pipeline built only from another module's graph parts; that module is not part of this run."""
from nvidia.dali import fn, pipeline_def

import graph_parts
from graph_parts import jitter


@pipeline_def(batch_size=8, num_threads=2, device_id=None, seed=5)
def train(root):
    arrays, masks = graph_parts.shuffled_arrays(root, "*.npy")
    size = graph_parts.size_of(root)  # plain Python: only an operator's keyword gets it
    rotated, frame = jitter(arrays, [size, size])
    return fn.resize(rotated, size=size), masks, frame


def main(root):
    pipe = train(root)
    pipe.build()
    return pipe.run()
