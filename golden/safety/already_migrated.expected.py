"""Already dynamic-mode code: nothing to do (a second run is a no-op)."""

import numpy as np
import nvidia.dali.experimental.dynamic as ndd


def loop(root):
    reader = ndd.readers.File(file_root=root, seed=1)
    for jpegs, labels in reader.next_epoch(batch_size=4):
        images = ndd.decoders.image(jpegs, device="gpu")
        yield images.slice[0], np.array(labels.select(0)), labels.batch_size
