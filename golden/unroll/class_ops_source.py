# A Pipeline subclass whose data comes from an ops.ExternalSource given source= (an iterable of batches),
# built in its own __init__ with self.build(): the steps call the source as fn.external_source did.
import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class SamplesPipeline(Pipeline):
    def __init__(self, batch_size, samples, num_threads, device_id):
        super().__init__(batch_size, num_threads, device_id, seed=12)
        self.source = ops.ExternalSource(source=samples, num_outputs=2, dtype=[types.FLOAT, types.UINT8])
        self.cast = ops.Cast(dtype=types.INT32)
        self.build()

    def define_graph(self):
        images, labels = self.source()
        return self.cast(images), labels


def first_labels(samples):
    pipe = SamplesPipeline(4, samples, 2, None)
    images, labels = pipe.run()
    return np.array(labels.as_tensor())
