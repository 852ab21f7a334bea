"""DALI imported under `if <flag>:` with placeholders in `else:` (a Pipeline subclass keeps a base class
to derive from without DALI): the ndd import goes under the flag, and ndd gets a placeholder too."""
import os
import numpy as np
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)

DALI_AVAILABLE = not os.environ.get("WITHOUT_DALI")

if DALI_AVAILABLE:
    import nvidia.dali.experimental.dynamic as ndd
else:
    ndd = None


class Doubled(ReaderStream):
    def __init__(self, root, batch_size=2):
        self.batch_size = batch_size
        self.num_threads = 1
        self.device_id = None
        self.seed = None
        self.reader = ndd.readers.Numpy(file_root=root, name="Reader", max_batch_size=self.batch_size)
        self._readers = {"Reader": self.reader}

    @Prefetch(depth=2)
    def steps(self):
        if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
            ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        while True:
            for (data,) in self.reader.next_epoch(batch_size=self.batch_size):
                yield (data * 2,)


def total(root, steps):
    pipe = Doubled(root)
    return sum(float(np.array(ndd.as_tensor(next(pipe)[0])).sum()) for _ in range(steps))
