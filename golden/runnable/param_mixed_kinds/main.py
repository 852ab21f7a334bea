"""One helper runs whatever pipeline it is given: a @pipeline_def pipeline and a Pipeline subclass both go through
it, each built there and stepped with run()."""
import sys

import numpy as np

from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.pipeline import Pipeline


@pipeline_def
def scaled(root, scale):
    arrays = fn.readers.numpy(file_root=root, name="Reader")
    return fn.cast(arrays, dtype=types.FLOAT), arrays * scale


class Shifted(Pipeline):
    def __init__(self, root, batch_size, shift):
        super().__init__(batch_size=batch_size, num_threads=1, device_id=None)
        self.root = root
        self.shift = shift

    def define_graph(self):
        arrays = fn.readers.numpy(file_root=self.root, name="Reader")
        return arrays, arrays + self.shift


def summarize(pipe, steps):
    pipe.build()
    rows = []
    for _ in range(steps):
        first, second = pipe.run()
        rows.append((len(first), float(np.array(first.as_tensor()).sum()), float(second.as_array().sum()),
                     second.at(0).shape))
    return rows


root = sys.argv[1]
print("pipeline_def", summarize(scaled(root, 3, batch_size=4, num_threads=1, device_id=None), 4))
print("subclass", summarize(Shifted(root, 2, 10), 4))
