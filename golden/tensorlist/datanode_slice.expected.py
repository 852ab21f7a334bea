"""Inside pipeline definitions, indexing a DataNode is per-sample slicing: x.slice[...]."""

import numpy as np
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


@Prefetch(depth=2)
def crop_pipe(*, batch_size=2):
    reader = ndd.readers.File(file_root="/data")
    while True:
        for outs in reader.next_epoch(batch_size=batch_size):
            data = ndd.random.uniform(range=(1, 3), shape=[1, 3], batch_size=batch_size)
            xy = ndd.random.uniform(range=(0, 1), shape=2, batch_size=batch_size)
            scaled = xy * 2 + 1
            first = scaled.slice[0]
            tail = ndd.math.sqrt(xy).slice[1:]
            jpegs = outs[0]
            labels = outs[1].slice[0]
            sized = ndd.resize(data, size=3)  # one output: resize returns two only with save_attrs=True
            yield first, tail, jpegs, labels, data.slice[0, 1:], sized.slice[0], (-xy).slice[1]


class LegacyPipe(ReaderStream):
    def __init__(self):
        self.batch_size = 2
        self.num_threads = 1
        self.device_id = None
        self.seed = None

    @Prefetch(depth=2)
    def steps(self):
        if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
            ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        if self.seed is not None:
            ndd.random.set_seed(self.seed)
        while True:
            xy = ndd.random.uniform(range=(0, 1), shape=2, batch_size=self.batch_size)
            yield xy.slice[0], xy.gpu().slice[1]


def pairs():
    while True:
        yield [np.ones((2, 3), np.float32)] * 2, [np.zeros((2, 3), np.float32)] * 2


def singles():
    while True:
        yield [np.ones((2, 3), np.float32)] * 2


def external_pipe(*, batch_size=2):
    source_1 = pairs()
    source_2 = singles()
    while True:
        try:
            pair = next(source_1)
        except StopIteration:
            return  # the source is exhausted: pipe.run() raised StopIteration from here on
        pair = tuple(ndd.as_batch(output) for output in pair)
        try:
            single = next(source_2)
        except StopIteration:
            return  # the source is exhausted: pipe.run() raised StopIteration from here on
        single = ndd.as_batch(single)
        yield pair[0], pair[1].slice[0], single.slice[0]
