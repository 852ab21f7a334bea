import contextlib
import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


class Base(ReaderStream):
    def __init__(self, batch_size, num_threads, device_id, files, shard_id=0, num_shards=1):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = 12
        self.input = ndd.readers.Numpy(files=files, random_shuffle=True, shard_id=shard_id, num_shards=num_shards, seed=self.seed, max_batch_size=self.batch_size)
        self.label_in = ndd.readers.Numpy(files=files, shard_id=0, num_shards=1, max_batch_size=self.batch_size)

    def get_reader(self, data):
        return ndd.readers.Numpy(files=data, shard_id=0, num_shards=1)

    def finish(self, data):
        return ndd.cast(data, dtype=types.FLOAT) * 2


class Train(Base):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._readers = {**self._readers, "Reader": self.input}
        self._readers = {**self._readers, "Labels": self.label_in}

    @Prefetch(depth=2)
    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4

            def endless(reader):  # one reader's batches, epoch after epoch, as pipe.run() read them
                while True:
                    yield from reader.next_epoch(batch_size=self.batch_size)

            for (data,), (label,) in zip(endless(self.input), endless(self.label_in)):
                yield self.finish(data), label


class Val(Base):
    def __init__(self, batch_size, num_threads, device_id, files, train):
        super().__init__(batch_size, num_threads, device_id, files)
        if train:
            self.own = ndd.readers.Numpy(files=files, shuffle_after_epoch=True, shard_id=0, num_shards=1, name="Own", max_batch_size=self.batch_size)
            self._readers = {"Own": self.own}
        else:
            self.own = ndd.readers.Numpy(files=files, shard_id=0, num_shards=1, name="Own", max_batch_size=self.batch_size)
            self._readers = {"Own": self.own}

    @Prefetch(depth=2)
    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            while True:
                for (data,) in self.own.next_epoch(batch_size=self.batch_size):
                    outputs = self.finish(data)
                    yield tuple(outputs) if isinstance(outputs, (tuple, list)) else (outputs,)


class FileBase(ReaderStream):
    def __init__(self, batch_size, num_threads, device_id, root):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = None
        self.input = ndd.readers.File(file_root=root, random_shuffle=True, seed=3, max_batch_size=self.batch_size)

    def load(self, input_outputs):  # a reader read in a helper define_graph calls: the steps read it there
        return input_outputs


class FileTrain(FileBase):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._readers = {**self._readers, "Reader": self.input}

    @Prefetch(depth=2)
    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            while True:
                for input_outputs in self.input.next_epoch(batch_size=self.batch_size):
                    jpegs, labels = self.load(input_outputs)
                    yield jpegs, labels
