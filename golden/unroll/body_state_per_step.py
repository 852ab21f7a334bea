"""Plain Python state the steps change: pipeline mode ran the whole body once, so a list filled by a loop of
operators, a dict stored into, a counter added to (also through a second name for the same list) started empty
at that one run. Each step of the generator starts them again; what nothing in the steps changes (a file list
shuffled by a seeded random.Random before the reader) is still made once, before the steps."""

import random

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=4, seed=3)
def views(root):
    files = sorted(["a.jpg", "b.jpg", "c.jpg"])
    random.Random(5).shuffle(files)
    jpegs, labels = fn.readers.file(file_root=root, files=files)
    images = fn.decoders.image(jpegs)
    outs = []
    crops = outs
    sizes = {}
    count = 0
    for size in (64, 96):
        crops.append(fn.resize(images, size=size))
        sizes[size] = fn.shapes(outs[-1])
        count += 1
    scale = 1.0 / count
    return (*outs, sizes[64], labels * scale)
