"""Shapes as graph values (fn.shapes with and without dtype, DataNode.shape()), sliced into widths and
heights, and outputs read through test_utils.to_array, per batch and per sample, over two pipelines built
in a list comprehension."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types
from test_utils import to_array


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def shapes_pipe(root, shard):
    jpegs, labels = fn.readers.file(file_root=root, shard_id=shard, num_shards=2)
    images = fn.decoders.image(jpegs, device="cpu")
    sizes = fn.shapes(images)
    size_f = fn.shapes(images, dtype=types.FLOAT)
    height = fn.slice(size_f, 0, 1, axes=[0])
    width = fn.slice(size_f, 1, 1, axes=[0])
    area = height * width
    small = images.shape(dtype=types.INT32)
    return sizes, area, small, labels


if __name__ == "__main__":
    pipes = [shapes_pipe(sys.argv[1], shard) for shard in range(2)]
    [pipe.build() for pipe in pipes]
    for step in range(3):
        for shard, pipe in enumerate(pipes):
            sizes, area, small, labels = pipe.run()
            whole = to_array(sizes)
            print(f"step {step} shard {shard}: sizes {whole.dtype} {whole.shape} {whole.tolist()}")
            print(f"  area {to_array(area).dtype} {to_array(area).ravel().tolist()}")
            for s in range(2):
                sample = to_array(small[s])
                print(f"  sample {s}: {sample.dtype} {sample.shape} {sample.tolist()} "
                      f"label {to_array(labels[s]).tolist()}")
