"""A base Pipeline class with helpers named like define_graph, called by its subclasses in every way: self.X(),
super().X() from an override, Base.X(self, ...). The helper whose new name is taken keeps its name."""

import contextlib
import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


class CommonPipeline(ReaderStream):
    def __init__(self, root, batch_size, num_threads, device_id):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = None
        self.root = root
        self.decode = lambda *inputs, **kwargs: ndd.decoders.image(*inputs, device="cpu", output_type=types.RGB, **kwargs)
        self.res = lambda *inputs, **kwargs: ndd.resize(*inputs, resize_x=16, resize_y=16, **kwargs)

    def base_step(self, jpegs, labels):
        return self.res(self.decode(jpegs)), labels

    def define_graph_tail(self, images):
        return images

    def step_tail(self, images):  # the name define_graph_tail would get: it keeps its own
        return self.define_graph_tail(images)


class FilePipeline(CommonPipeline):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.reader = ndd.readers.File(file_root=self.root, name="Reader", max_batch_size=self.batch_size)
        self._readers = {"Reader": self.reader}

    @Prefetch(depth=2)
    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            while True:
                for jpegs, labels in self.reader.next_epoch(batch_size=self.batch_size):
                    outputs = self.base_step(jpegs, labels)
                    yield tuple(outputs) if isinstance(outputs, (tuple, list)) else (outputs,)


class ShiftedPipeline(CommonPipeline):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.reader = ndd.readers.File(file_root=self.root, name="Reader", max_batch_size=self.batch_size)
        self._readers = {"Reader": self.reader}

    def base_step(self, jpegs, labels):
        images, labels = super().base_step(jpegs, labels)
        return self.step_tail(images), labels + 10

    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            while True:
                for jpegs, labels in self.reader.next_epoch(batch_size=self.batch_size):
                    outputs = CommonPipeline.base_step(self, jpegs, labels)
                    yield tuple(outputs) if isinstance(outputs, (tuple, list)) else (outputs,)


pipe = ShiftedPipeline("/data", 4, 2, 0)
images, labels = next(pipe)
