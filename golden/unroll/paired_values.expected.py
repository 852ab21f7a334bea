"""Pipeline values kept in lists beside plain values: what comes out of each place is followed.

The first pipeline's function sits in [function, range] pairs: the ranges are plain values, the functions
are called, so it migrates. The second's output sits in a [name, output] pair whose output reaches
print(): that unit stays in pipeline mode, whichever way the pair is taken apart.
"""
import contextlib
import numpy as np
from nvidia.dali import fn, pipeline_def
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


@Prefetch(depth=2)
def arrays(root, *, batch_size, num_threads=None, device_id=None, seed=None):
    with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
        if num_threads is not None and num_threads > ndd.get_num_threads():
            ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        reader = ndd.readers.Numpy(file_root=root, name="Reader")
        while True:
            for (data,) in reader.next_epoch(batch_size=batch_size):
                yield (data,)


# dali-migrate: DM230 more_arrays stays in pipeline mode with everything that uses it: line 32: batch (a pipeline output (TensorList)) is passed to print(), whose result differs once it is a dynamic-mode value; line 34: item (a value that may be a pipeline's) is passed to print(), whose result differs once it is a dynamic-mode value
@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def more_arrays(root):
    data = fn.readers.numpy(file_root=root)
    return data


for make, (low, high) in [[arrays, (0, 9)], [arrays, (10, 19)]]:
    pipe = make("data", batch_size=2, num_threads=1, device_id=0)
    (out,) = next(pipe)
    print(make.__name__, low, high, np.array(ndd.as_tensor(out)).min() >= low)

other = more_arrays("data")
(found,) = other.run()
named = ["arrays", found]
title, batch = named
print(title)
# dali-migrate: DM231 batch (a pipeline output (TensorList)) is passed to print(), whose result differs once it is a dynamic-mode value
print(batch)
for item in named:
    # dali-migrate: DM231 item (a value that may be a pipeline's) is passed to print(), whose result differs once it is a dynamic-mode value
    print(item)


# dali-migrate: DM230 inspected stays in pipeline mode with everything that uses it: line 44: inspected._is_pipeline_def: the migrated function has no `._is_pipeline_def` as the @pipeline_def function had
@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def inspected(root):
    data = fn.readers.numpy(file_root=root)
    return data


print(inspected.__name__, inspected.__qualname__, inspected.__module__)
# dali-migrate: DM231 inspected._is_pipeline_def: the migrated function has no `._is_pipeline_def` as the @pipeline_def function had
print(inspected._is_pipeline_def)  # pipeline_def's own attribute: kept, marked


# dali-migrate: DM230 shown stays in pipeline mode with everything that uses it: line 57: (shown, maybe) (a container holding a pipeline's values) is passed to print(), whose result differs once it is a dynamic-mode value
@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def shown(root):
    data = fn.readers.numpy(file_root=root)
    return data


shown_pipe = shown("data")
shown_pipe.build()
(first,) = shown_pipe.run()
maybe = first if title else 3  # an output or a number
# dali-migrate: DM231 (shown, maybe) (a container holding a pipeline's values) is passed to print(), whose result differs once it is a dynamic-mode value
print((shown, maybe))  # a tuple holding what may be an output reaches print(): marked
