"""Pipeline values kept in lists beside plain values: what comes out of each place is followed.

The first pipeline's function sits in [function, range] pairs: the ranges are plain values, the functions
are called, so it migrates. The second's output sits in a [name, output] pair whose output reaches
print(): that unit stays in pipeline mode, whichever way the pair is taken apart.
"""
from nvidia.dali import fn, pipeline_def


@pipeline_def
def arrays(root):
    data = fn.readers.numpy(file_root=root, name="Reader")
    return data


@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def more_arrays(root):
    data = fn.readers.numpy(file_root=root)
    return data


for make, (low, high) in [[arrays, (0, 9)], [arrays, (10, 19)]]:
    pipe = make("data", batch_size=2, num_threads=1, device_id=0)
    (out,) = pipe.run()
    print(make.__name__, low, high, out.as_array().min() >= low)

other = more_arrays("data")
(found,) = other.run()
named = ["arrays", found]
title, batch = named
print(title)
print(batch)
for item in named:
    print(item)


@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def inspected(root):
    data = fn.readers.numpy(file_root=root)
    return data


print(inspected.__name__, inspected.__qualname__, inspected.__module__)
print(inspected._is_pipeline_def)  # pipeline_def's own attribute: kept, marked


@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def shown(root):
    data = fn.readers.numpy(file_root=root)
    return data


shown_pipe = shown("data")
shown_pipe.build()
(first,) = shown_pipe.run()
maybe = first if title else 3  # an output or a number
print((shown, maybe))  # a tuple holding what may be an output reaches print(): marked
