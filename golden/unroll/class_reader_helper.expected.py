import contextlib
import numpy as np
import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import ReaderStream  # written by dali-migrate (migrate --write recreates it)


class Base(ReaderStream):
    def __init__(self, root, *args, **kwargs):
        self._pipeline_options(*args, **kwargs)  # the Pipeline options the steps read: batch_size, num_threads, device_id, seed
        self.root = root
        self.shuffle_seed = self.seed + 1  # read back once the base class set them


class Train(Base):
    def __init__(self, root, shuffle, *args, **kwargs):
        super().__init__(root, *args, **kwargs)
        if shuffle:
            self.input = ndd.readers.File(file_root=root, random_shuffle=True, seed=self.shuffle_seed, name="Reader", max_batch_size=self.batch_size)
            self._readers = {"Reader": self.input}
        else:
            self.input = ndd.readers.File(file_root=root, name="Reader", max_batch_size=self.batch_size)
            self._readers = {"Reader": self.input}
        self.decode = lambda *inputs, **kwargs: ndd.decoders.image(*inputs, device="gpu", **kwargs)

    def load(self, jpegs, labels, size):
        """The reader's batch, decoded."""
        return ndd.resize(self.decode(jpegs), size=size), labels

    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            while True:
                for jpegs, labels_2 in self.input.next_epoch(batch_size=self.batch_size):
                    images, labels = self.load(jpegs, labels_2, 64)
                    yield images, labels


class Arrays(Base):
    def __init__(self, root, **kwargs):
        super().__init__(root, **kwargs)
        self.arrays = ndd.readers.Numpy(file_root=root, name="Arrays", max_batch_size=self.batch_size)
        self._readers = {"Arrays": self.arrays}

    def load(self, arrays_outputs):
        return arrays_outputs

    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            while True:
                for (arrays_outputs,) in self.arrays.next_epoch(batch_size=self.batch_size):
                    data = self.load(arrays_outputs)
                    yield (data * 2,)


# dali-migrate: DM212 Twice stays in pipeline mode: load() reads a reader object and is used by both(), not only by define_graph
class Twice(Pipeline):
    def __init__(self, root, batch_size):
        super().__init__(batch_size=batch_size)
        self.input = ops.readers.File(file_root=root)

    # dali-migrate: DM230 load builds part of Twice, which stays in pipeline mode with everything that uses it: see its definition
    def load(self):  # called by another helper, not by define_graph: stays marked
        return self.input(name="Reader")

    # dali-migrate: DM230 both builds part of Twice, which stays in pipeline mode with everything that uses it: see its definition
    def both(self):
        jpegs, labels = self.load()
        return jpegs, labels

    def define_graph(self):
        return self.both()


train = Train("images", True, batch_size=8, num_threads=2, device_id=0, seed=4)
images, labels = next(train)
arrays = Arrays("arrays", batch_size=2)
print(arrays.epoch_size("Arrays"), np.array(ndd.as_tensor(next(arrays)[0])).sum())
twice = Twice("images", 4)
twice.build()
jpegs, file_labels = twice.run()
