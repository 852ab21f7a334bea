"""ops.Compose chains the tool cannot read: over a list built elsewhere, and with an op of two outputs before
another (the next op gets both as inputs)."""

import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


# dali-migrate: DM212 ListPipe stays in pipeline mode: ops.Compose(...) is not given a list of ops objects written in place, so the tool cannot tell which operators it chains
class ListPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir):
        super().__init__(batch_size, num_threads, device_id)
        self.input = ops.readers.File(file_root=data_dir)
        self.decode = ops.decoders.Image()
        augmentations = [ops.Resize(resize_x=32, resize_y=32), ops.Flip(horizontal=1)]
        self.aug = ops.Compose(augmentations)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return self.aug(self.decode(jpegs)), labels


# dali-migrate: DM212 AttrsPipe stays in pipeline mode: ops.Resize gives more than one output inside ops.Compose(...): the next operator takes them all as inputs
class AttrsPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir):
        super().__init__(batch_size, num_threads, device_id)
        self.input = ops.readers.File(file_root=data_dir)
        self.decode = ops.decoders.Image()
        self.aug = ops.Compose([ops.Resize(resize_x=32, save_attrs=True), ops.Cat()])

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return self.aug(self.decode(jpegs)), labels
