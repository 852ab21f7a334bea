"""fn.normalize with mean/stddev held in variables and attributes: a scalar gets the input's number of
dimensions at run time (ndd would pass it as a 0-d per-sample tensor, which Normalize refuses); arrays pass
through; literals stay as they are."""

import numpy as np
import nvidia.dali.experimental.dynamic as ndd

ROWS = np.arange(12, dtype=np.float32).reshape(3, 4)


class Stats:
    def __init__(self, mean, stddev):
        self.mean = mean
        self.stddev = stddev


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


def normalized(stats, scalar_mean, scalar_stddev, *, batch_size=2):
    source = lambda: [ROWS, ROWS + 1]
    while True:
        try:
            data = source()
        except StopIteration:
            return  # the source is exhausted: pipe.run() raised StopIteration from here on
        data = ndd.as_batch(data)
        by_attributes = ndd.normalize(data, mean=np.reshape(stats.mean, (1,) * data.ndim) if np.ndim(stats.mean) == 0 else stats.mean, stddev=np.reshape(stats.stddev, (1,) * data.ndim) if np.ndim(stats.stddev) == 0 else stats.stddev)
        by_names = ndd.normalize(data, mean=np.reshape(scalar_mean, (1,) * data.ndim) if np.ndim(scalar_mean) == 0 else scalar_mean, stddev=np.reshape(scalar_stddev, (1,) * data.ndim) if np.ndim(scalar_stddev) == 0 else scalar_stddev)
        literal = ndd.normalize(data, mean=1.0, stddev=2.0)
        yield by_attributes, by_names, literal
