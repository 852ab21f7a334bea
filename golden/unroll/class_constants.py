"""Constants built by a Pipeline class hierarchy: typed types.Constant in a subclass's __init__ after
super().__init__ and in a helper method become batches of self.batch_size (a bare scalar operand stays the value).
A per-sample external_source with num_outputs gives each output its own dtype."""

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class Base(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, size, source):
        super().__init__(batch_size, num_threads, device_id)
        self.size = size
        self.source = source

    def pad(self, data):
        return fn.crop(data, crop=self.size, out_of_bounds_policy="pad")

    def offset(self, data):
        return data + types.Constant(np.array([1, 2]), dtype=types.FLOAT)


class Patches(Base):
    def __init__(self, batch_size, num_threads, device_id, size, source):
        super().__init__(batch_size, num_threads, device_id, size, source)
        self.shape = types.Constant(np.array(self.size), dtype=types.INT64)

    def define_graph(self):
        image, label = fn.external_source(source=self.source, num_outputs=2, batch=False,
                                          dtype=[types.FLOAT, types.INT32])
        image = fn.slice(image, np.array([0, 0]), self.shape)
        return self.pad(image), self.offset(label)
