"""A class of the program named DALIGenericIterator, not DALI's (nothing imports it from nvidia.dali): left as it is;
the pipeline it steps migrates, its run() inside the class included."""

import contextlib
import numpy as np
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


class DALIGenericIterator:
    """Our own iterator, not DALI's: walks a pipeline for a fixed number of steps."""

    def __init__(self, pipe, names, size=4):
        self.pipe, self.names, self.size = pipe, names, size

    def __iter__(self):
        for _ in range(self.size):
            images, labels = next(self.pipe)
            yield {"images": images, "labels": labels}

    def reset(self):
        pass


@Prefetch(depth=2)
def pipe(root, *, batch_size=2, num_threads=1, device_id=None, seed=None):
    with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
        if num_threads is not None and num_threads > ndd.get_num_threads():
            ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        reader = ndd.readers.File(file_root=root)
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield ndd.decoders.image(jpegs), labels


def main(root):
    p = pipe(root)
    loader = DALIGenericIterator(p, ["images", "labels"], size=3)
    for batch in loader:
        print(batch["labels"].batch_size, np.array(ndd.as_tensor(batch["labels"])).ravel().tolist())
    loader.reset()


if __name__ == "__main__":
    import sys
    main(sys.argv[1])
