import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class Base(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, files, shard_id=0, num_shards=1):
        super().__init__(batch_size, num_threads, device_id, seed=12)
        self.input = ops.readers.Numpy(files=files, random_shuffle=True, shard_id=shard_id, num_shards=num_shards)
        self.label_in = self.get_reader(files)

    def get_reader(self, data):
        return ops.readers.Numpy(files=data, shard_id=0, num_shards=1)

    def finish(self, data):
        return fn.cast(data, dtype=types.FLOAT) * 2


class Train(Base):
    def define_graph(self):
        data = self.input(name="Reader")
        label = self.label_in(name="Labels")
        return self.finish(data), label


class Val(Base):
    def __init__(self, batch_size, num_threads, device_id, files, train):
        super().__init__(batch_size, num_threads, device_id, files)
        if train:
            self.own = ops.readers.Numpy(files=files, shuffle_after_epoch=True, shard_id=0, num_shards=1)
        else:
            self.own = ops.readers.Numpy(files=files, shard_id=0, num_shards=1)

    def define_graph(self):
        data = self.own(name="Own")
        return self.finish(data)


class FileBase(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, root):
        super(FileBase, self).__init__(batch_size, num_threads, device_id)
        self.input = ops.FileReader(file_root=root, random_shuffle=True, seed=3)

    def load(self):  # a reader read in a helper define_graph calls: the steps read it there
        return self.input(name="Reader")


class FileTrain(FileBase):
    def define_graph(self):
        jpegs, labels = self.load()
        return jpegs, labels
