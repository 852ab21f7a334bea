"""Graph parts and a pipeline factory in one module (as a test suite's utils): a source helper whose reader is
named, and a function that builds its own pipeline around a per-sample external source and returns it."""
import numpy as np
import contextlib
import inspect
import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from nvidia.dali.types import SampleInfo
from dali_dynamic_compat import ReaderStream  # written by dali-migrate (migrate --write recreates it)


def counting_pipeline(batch_size, shape):
    def sample(info):
        return np.full(shape, info.idx_in_epoch, dtype=np.int32)

    def counting(*, batch_size=batch_size, num_threads=2, device_id=None, seed=None):
        with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
            if num_threads is not None and num_threads > ndd.get_num_threads():
                ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            source = sample
            source = source() if inspect.isgeneratorfunction(source) else source
            source_next = iter(source).__next__ if hasattr(source, '__iter__') else None
            source_takes_info = source_next is None and len(inspect.signature(source).parameters) > 0
            source_step = 0  # the iteration in the epoch, as pipeline mode counted it
            while True:
                try:
                    source_data = [source_next() if source_next else source(SampleInfo(source_step * batch_size + i, i, source_step, 0)) if source_takes_info else source() for i in range(batch_size)]
                except StopIteration:
                    return  # the source is exhausted: pipe.run() raised StopIteration from here on
                source_step += 1
                source_data = ndd.as_batch(source_data, dtype=types.INT32)
                yield (source_data,)

    return counting()


def labelled_images(root, size, *, batch_size, seed=None):
    reader = ndd.readers.File(file_root=root, name="Reader", max_batch_size=batch_size)

    def steps():
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                images = ndd.decoders.image(jpegs)
                yield ndd.resize(images, resize_x=size, resize_y=size), labels

    return ReaderStream(steps(), {"Reader": reader}, batch_size)
