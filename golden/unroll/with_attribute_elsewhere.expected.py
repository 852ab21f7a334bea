"""A Pipeline made in __init__ as an attribute and filled by another method's `with self.pipe:`: __init__ stores the
option it computed (batch_size) on the object, and the block becomes the generator with it as its default
(attribute_pipes.py); the other methods' run() and the caller's build() follow."""

import numpy as np
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


class Loader:
    def __init__(self, root, batch_size):
        self.root = root
        self.pipe_batch_size = batch_size  # the options self.pipe was made with, for fill()
        self.fill()

    def fill(self):
        @Prefetch(depth=2)
        def pipe_steps(*, batch_size=self.pipe_batch_size):
            reader = ndd.readers.Numpy(file_root=self.root, name="Reader")
            while True:
                for (data,) in reader.next_epoch(batch_size=batch_size):
                    yield (data * 2,)
        self.pipe = pipe_steps()

    def next(self):
        (data,) = next(self.pipe)
        return np.array(ndd.as_tensor(data))


loader = Loader("/data", 2)
print(loader.next().shape)
