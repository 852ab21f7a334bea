"""Pipeline classes as the keys of a dict of data sets, and an ops attribute that holds a different operator in
each branch of an if/else."""
import contextlib
import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


class Base(ReaderStream):
    def __init__(self, paths, batch_size, num_threads, device_id, crop):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = None
        if crop:
            self.decode = lambda *inputs, **kwargs: ndd.decoders.image_random_crop(*inputs, device="gpu", output_type=types.RGB, **kwargs)
        else:
            self.decode = lambda *inputs, **kwargs: ndd.decoders.image(*inputs, device="gpu", output_type=types.RGB, **kwargs)

    def finish(self, jpegs, labels):
        return self.decode(jpegs), labels


class FilePipe(Base):
    def __init__(self, **kwargs):
        super(FilePipe, self).__init__(**kwargs)
        self.input = ndd.readers.File(file_root=kwargs["paths"][0], name="Reader", max_batch_size=self.batch_size)
        self._readers = {"Reader": self.input}

    @Prefetch(depth=2)
    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            if self.seed is not None:
                ndd.random.set_seed(self.seed)
            while True:
                for jpegs, labels in self.input.next_epoch(batch_size=self.batch_size):
                    outputs = self.finish(jpegs, labels)
                    yield tuple(outputs) if isinstance(outputs, (tuple, list)) else (outputs,)


data = {FilePipe: [["/data/train"], ["/data/val"]]}
data[FilePipe].append(["/data/extra"])
for cls in data.keys():
    for paths in data[cls]:
        pipe = cls(paths=paths, batch_size=8, num_threads=2, device_id=0, crop=len(data[cls]) > 2)
        print(pipe.epoch_size("Reader"))
        images, labels = next(pipe)
