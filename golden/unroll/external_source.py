"""fn.external_source fed by a generator function, an iterable, a batch callable, a source of unknown
kind, next to a reader; and the forms that stay in pipeline mode (marked)."""

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def

FILES = []
BATCHES = [[np.full((2, 3), i * 10 + k, dtype=np.uint8) for k in range(2)] for i in range(3)]
PAIRS = [(batch, [sample + 100 for sample in batch]) for batch in BATCHES]


def encoded_batches():
    """Ragged batches of encoded JPEG bytes, two files per batch."""
    for start in range(0, len(FILES) - 1, 2):
        yield [np.fromfile(path, dtype=np.uint8) for path in FILES[start:start + 2]]


def labelled_batches():
    for start in range(0, len(FILES) - 1, 2):
        jpegs = [np.fromfile(path, dtype=np.uint8) for path in FILES[start:start + 2]]
        labels = [np.array([start + k], dtype=np.int32) for k in range(2)]
        yield jpegs, labels


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def decode_files(size):
    jpegs = fn.external_source(source=encoded_batches, name="jpegs", no_copy=True)
    images = fn.decoders.image(jpegs, device="mixed")
    return fn.resize(images, resize_x=size, resize_y=size)


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def decode_labelled():
    jpegs, labels = fn.external_source(source=labelled_batches, num_outputs=2)
    images = fn.decoders.image(jpegs)
    return fn.resize(images, resize_x=16, resize_y=16), labels


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def cycled_arrays():
    data = fn.external_source(source=BATCHES, cycle=True, layout="HW")
    return data * 2


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def called_each_step(batches):
    pending = iter(batches)
    data = fn.external_source(source=lambda: next(pending), dtype=types.UINT8)
    return data + 1


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def given_source(source):
    data = fn.external_source(source=source)
    return data


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def reader_and_source(root):
    jpegs, labels = fn.readers.file(file_root=root)
    pair = fn.external_source(source=PAIRS, num_outputs=2)
    images = fn.decoders.image(jpegs)
    return fn.resize(images, resize_x=8, resize_y=8), labels, pair[0] + pair[1]


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def per_sample():
    data = fn.external_source(source=lambda info: np.full((2,), info.idx_in_epoch), batch=False)
    return data


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def with_batch_info():
    data = fn.external_source(source=lambda info: BATCHES[info.iteration % 3], batch_info=True)
    return data


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def raise_at_end():
    data = fn.external_source(source=BATCHES, cycle="raise")
    return data


def run_decode(files, steps):
    FILES[:] = files
    pipe = decode_files(16)
    pipe.build()
    return [pipe.run() for _ in range(steps)]


def count_steps(files):
    FILES[:] = files
    pipe = decode_labelled()
    pipe.build()
    steps = 0
    try:
        while True:
            pipe.run()
            steps += 1
    except StopIteration:
        return steps
