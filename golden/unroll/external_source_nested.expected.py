"""external_source calls nested in expressions, as DALI's own tests and examples write them: as an operator's
input (decoded straight away), returned with arithmetic, and as set_outputs' arguments in a `with pipe:` block.
Each is read into a name of its own before its statement and migrated like an assigned one. One under a
conditional expression is left as it is: pipeline mode made it only when the condition held."""

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def
import nvidia.dali.experimental.dynamic as ndd

FILES = []


def encoded_batches():
    for start in range(0, len(FILES) - 1, 2):
        yield [np.fromfile(name, dtype=np.uint8) for name in FILES[start:start + 2]]


def counts():
    for i in range(4):
        yield [np.full((2, 3), i + k, dtype=np.float32) for k in range(2)]


def decoded(*, batch_size=2):
    for source_data in encoded_batches():
        source_data = ndd.as_batch(source_data)
        images = ndd.decoders.image(source_data, output_type=types.GRAY)
        yield (ndd.resize(images, resize_x=8, resize_y=8),)


def scaled(*, batch_size=2):
    while True:
        for source_data in counts():
            source_data = ndd.as_batch(source_data)
            yield (source_data * 3,)


def block_pipeline():
    def pipe_steps(*, batch_size=2):
        source_1 = counts()
        source_2 = counts()
        while True:
            try:
                source_data = next(source_1)
            except StopIteration:
                return  # the source is exhausted: pipe.run() raised StopIteration from here on
            source_data = ndd.as_batch(source_data)
            try:
                source_data_2 = next(source_2)
            except StopIteration:
                return  # the source is exhausted: pipe.run() raised StopIteration from here on
            source_data_2 = ndd.as_batch(source_data_2)
            yield source_data + 1, ndd.cast(source_data_2, dtype=types.INT32)
    pipe = pipe_steps()
    return pipe


# dali-migrate: DM230 chosen stays in pipeline mode with everything that uses it: line 44: fn.external_source has no dynamic-mode counterpart: pass the data to the ops directly (ndd.as_batch) or use ndd.ExternalSource
@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def chosen(flag):
    # dali-migrate: DM103 fn.external_source has no dynamic-mode counterpart: pass the data to the ops directly (ndd.as_batch) or use ndd.ExternalSource
    return fn.external_source(source=counts) if flag else fn.random.uniform(shape=[2, 3])
