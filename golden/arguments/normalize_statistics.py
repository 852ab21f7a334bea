"""fn.normalize with mean/stddev held in variables and attributes: a scalar gets the input's number of
dimensions at run time (ndd would pass it as a 0-d per-sample tensor, which Normalize refuses); arrays pass
through; literals stay as they are."""

import numpy as np
from nvidia.dali import fn, pipeline_def

ROWS = np.arange(12, dtype=np.float32).reshape(3, 4)


class Stats:
    def __init__(self, mean, stddev):
        self.mean = mean
        self.stddev = stddev


@pipeline_def(batch_size=2, num_threads=2, device_id=None)
def normalized(stats, scalar_mean, scalar_stddev):
    data = fn.external_source(source=lambda: [ROWS, ROWS + 1], batch=True)
    by_attributes = fn.normalize(data, mean=stats.mean, stddev=stats.stddev)
    by_names = fn.normalize(data, mean=scalar_mean, stddev=scalar_stddev)
    literal = fn.normalize(data, mean=1.0, stddev=2.0)
    return by_attributes, by_names, literal
