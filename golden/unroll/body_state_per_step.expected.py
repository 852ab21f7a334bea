"""Plain Python state the steps change: pipeline mode ran the whole body once, so a list filled by a loop of
operators, a dict stored into, a counter added to (also through a second name for the same list) started empty
at that one run. Each step of the generator starts them again; what nothing in the steps changes (a file list
shuffled by a seeded random.Random before the reader) is still made once, before the steps."""

import random
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


@Prefetch(depth=2)
def views(root, *, batch_size=4, seed=3):
    ndd.random.set_seed(seed)
    files = sorted(["a.jpg", "b.jpg", "c.jpg"])
    random.Random(5).shuffle(files)
    reader = ndd.readers.File(file_root=root, files=files)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs)
            outs = []
            crops = outs
            sizes = {}
            count = 0
            for size in (64, 96):
                crops.append(ndd.resize(images, size=size))
                shapes_input = outs[-1]
                sizes[size] = ndd.as_batch(shapes_input.shape, dtype=ndd.int64, device=shapes_input.device)
                count += 1
            scale = 1.0 / count
            yield tuple((*outs, sizes[64], labels * scale))
