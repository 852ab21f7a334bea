import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class Base(Pipeline):
    def __init__(self, root, *args, **kwargs):
        super().__init__(*args, **kwargs)  # the callers' options, forwarded
        self.root = root
        self.shuffle_seed = self.seed + 1  # read back once the base class set them


class Train(Base):
    def __init__(self, root, shuffle, *args, **kwargs):
        super().__init__(root, *args, **kwargs)
        if shuffle:
            self.input = ops.readers.File(file_root=root, random_shuffle=True, seed=self.shuffle_seed)
        else:
            self.input = ops.readers.File(file_root=root)
        self.decode = ops.decoders.Image(device="mixed")

    def load(self, size):
        """The reader's batch, decoded."""
        jpegs, labels = self.input(name="Reader")
        return fn.resize(self.decode(jpegs), size=size), labels

    def define_graph(self):
        images, labels = self.load(64)
        return images, labels


class Arrays(Base):
    def __init__(self, root, **kwargs):
        super().__init__(root, **kwargs)
        self.arrays = ops.readers.Numpy(file_root=root)

    def load(self):
        return self.arrays(name="Arrays")

    def define_graph(self):
        data = self.load()
        return data * 2


class Twice(Pipeline):
    def __init__(self, root, batch_size):
        super().__init__(batch_size=batch_size)
        self.input = ops.readers.File(file_root=root)

    def load(self):  # called by another helper, not by define_graph: stays marked
        return self.input(name="Reader")

    def both(self):
        jpegs, labels = self.load()
        return jpegs, labels

    def define_graph(self):
        return self.both()


train = Train("images", True, batch_size=8, num_threads=2, device_id=0, seed=4)
images, labels = train.run()
arrays = Arrays("arrays", batch_size=2)
print(arrays.epoch_size("Arrays"), arrays.run()[0].as_array().sum())
twice = Twice("images", 4)
twice.build()
jpegs, file_labels = twice.run()
