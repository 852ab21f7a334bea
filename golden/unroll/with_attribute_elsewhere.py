"""A Pipeline made in __init__ as an attribute and filled by another method's `with self.pipe:`: __init__ stores the
option it computed (batch_size) on the object, and the block becomes the generator with it as its default
(attribute_pipes.py); the other methods' run() and the caller's build() follow."""
import nvidia.dali.fn as fn
from nvidia.dali.pipeline import Pipeline


class Loader:
    def __init__(self, root, batch_size):
        self.root = root
        self.pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
        self.fill()

    def fill(self):
        with self.pipe:
            data = fn.readers.numpy(file_root=self.root, name="Reader")
            self.pipe.set_outputs(data * 2)

    def next(self):
        (data,) = self.pipe.run()
        return data.as_array()


loader = Loader("/data", 2)
loader.pipe.build()
print(loader.next().shape)
