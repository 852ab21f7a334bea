"""external_source calls nested in expressions, as DALI's own tests and examples write them: as an operator's
input (decoded straight away), returned with arithmetic, and as set_outputs' arguments in a `with pipe:` block.
Each is read into a name of its own before its statement and migrated like an assigned one. One under a
conditional expression is left as it is: pipeline mode made it only when the condition held."""

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import Pipeline, pipeline_def

FILES = []


def encoded_batches():
    for start in range(0, len(FILES) - 1, 2):
        yield [np.fromfile(name, dtype=np.uint8) for name in FILES[start:start + 2]]


def counts():
    for i in range(4):
        yield [np.full((2, 3), i + k, dtype=np.float32) for k in range(2)]


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def decoded():
    images = fn.decoders.image(fn.external_source(source=encoded_batches), output_type=types.GRAY)
    return fn.resize(images, resize_x=8, resize_y=8)


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def scaled():
    return fn.external_source(source=counts, cycle=True) * 3


def block_pipeline():
    pipe = Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        pipe.set_outputs(fn.external_source(source=counts) + 1, fn.cast(fn.external_source(source=counts), dtype=types.INT32))
    return pipe


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def chosen(flag):
    return fn.external_source(source=counts) if flag else fn.random.uniform(shape=[2, 3])
