"""fn.external_source fed by a generator function, an iterable, a batch callable, a source of unknown
kind, next to a reader; and the forms that stay in pipeline mode (marked)."""

import numpy as np
import inspect
import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from nvidia.dali.types import BatchInfo
from nvidia.dali.types import SampleInfo
from dali_dynamic_compat import ReaderStream  # written by dali-migrate (migrate --write recreates it)

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


def decode_files(size, *, batch_size=2):
    for jpegs in encoded_batches():
        jpegs = ndd.as_batch(jpegs)
        images = ndd.decoders.image(jpegs, device="gpu")
        yield (ndd.resize(images, resize_x=size, resize_y=size),)


def decode_labelled(*, batch_size=2):
    for jpegs, labels in labelled_batches():
        jpegs = ndd.as_batch(jpegs)
        labels = ndd.as_batch(labels)
        images = ndd.decoders.image(jpegs)
        yield ndd.resize(images, resize_x=16, resize_y=16), labels


def cycled_arrays(*, batch_size=2):
    while True:
        for data in BATCHES:
            data = ndd.as_batch(data, layout="HW")
            yield (data * 2,)


def called_each_step(batches, *, batch_size=2):
    pending = iter(batches)
    source = lambda: next(pending)
    while True:
        try:
            data = source()
        except StopIteration:
            return  # the source is exhausted: pipe.run() raised StopIteration from here on
        data = ndd.as_batch(data, dtype=types.UINT8)
        yield (data + 1,)


def given_source(source, *, batch_size=2):
    source_2 = source
    source_2 = source_2() if inspect.isgeneratorfunction(source_2) else source_2
    source_2_next = iter(source_2).__next__ if hasattr(source_2, '__iter__') else None
    source_2_takes_info = source_2_next is None and len(inspect.signature(source_2).parameters) > 0
    source_2_step = 0  # the iteration in the epoch, as pipeline mode counted it
    while True:
        try:
            data = source_2_next() if source_2_next else source_2(source_2_step) if source_2_takes_info else source_2()
        except StopIteration:
            return  # the source is exhausted: pipe.run() raised StopIteration from here on
        source_2_step += 1
        data = ndd.as_batch(data)
        yield (data,)


def reader_and_source(root, *, batch_size=2):
    reader = ndd.readers.File(file_root=root)
    source = iter(PAIRS)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            try:
                pair = next(source)
            except StopIteration:
                return  # the source is exhausted: pipe.run() raised StopIteration from here on
            pair = tuple(ndd.as_batch(output) for output in pair)
            images = ndd.decoders.image(jpegs)
            yield ndd.resize(images, resize_x=8, resize_y=8), labels, pair[0] + pair[1]


def per_sample(*, batch_size=2):
    source = lambda info: np.full((2,), info.idx_in_epoch)
    source_step = 0  # the iteration in the epoch, as pipeline mode counted it
    while True:
        try:
            data = [source(SampleInfo(source_step * batch_size + i, i, source_step, 0)) for i in range(batch_size)]
        except StopIteration:
            return  # the source is exhausted: pipe.run() raised StopIteration from here on
        source_step += 1
        data = ndd.as_batch(data)
        yield (data,)


def with_batch_info(*, batch_size=2):
    source = lambda info: BATCHES[info.iteration % 3]
    source_step = 0  # the iteration in the epoch, as pipeline mode counted it
    while True:
        try:
            data = source(BatchInfo(source_step, 0))
        except StopIteration:
            return  # the source is exhausted: pipe.run() raised StopIteration from here on
        source_step += 1
        data = ndd.as_batch(data)
        yield (data,)


def raise_at_end(*, batch_size=2):
    source = iter(BATCHES)

    def steps(epoch_idx=0):
        nonlocal source
        while True:
            try:
                data = next(source)
            except StopIteration:
                source = iter(BATCHES)  # cycle="raise": read from the start in the next epoch
                return  # the epoch ends: pipe.run() raised StopIteration until pipe.reset()
            data = ndd.as_batch(data)
            yield (data,)

    return ReaderStream(steps(), {}, batch_size, restart=steps)


def run_decode(files, steps):
    FILES[:] = files
    pipe = decode_files(16)
    return [next(pipe) for _ in range(steps)]


def count_steps(files):
    FILES[:] = files
    pipe = decode_labelled()
    steps = 0
    try:
        while True:
            next(pipe)
            steps += 1
    except StopIteration:
        return steps
