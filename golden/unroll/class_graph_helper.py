"""A base Pipeline class with helpers named like define_graph, called by its subclasses in every way: self.X(),
super().X() from an override, Base.X(self, ...). The helper whose new name is taken keeps its name."""

import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class CommonPipeline(Pipeline):
    def __init__(self, root, batch_size, num_threads, device_id):
        super().__init__(batch_size, num_threads, device_id)
        self.root = root
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.res = ops.Resize(resize_x=16, resize_y=16)

    def base_define_graph(self, jpegs, labels):
        return self.res(self.decode(jpegs)), labels

    def define_graph_tail(self, images):
        return images

    def step_tail(self, images):  # the name define_graph_tail would get: it keeps its own
        return self.define_graph_tail(images)


class FilePipeline(CommonPipeline):
    def define_graph(self):
        jpegs, labels = fn.readers.file(file_root=self.root, name="Reader")
        return self.base_define_graph(jpegs, labels)


class ShiftedPipeline(CommonPipeline):
    def base_define_graph(self, jpegs, labels):
        images, labels = super().base_define_graph(jpegs, labels)
        return self.step_tail(images), labels + 10

    def define_graph(self):
        jpegs, labels = fn.readers.file(file_root=self.root, name="Reader")
        return CommonPipeline.base_define_graph(self, jpegs, labels)


pipe = ShiftedPipeline("/data", 4, 2, 0)
pipe.build()
images, labels = pipe.run()
