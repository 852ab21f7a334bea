"""What the shapes and to_array rewrites do not cover stays marked."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def
from helpers import to_array


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def decoded_sizes(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return fn.shapes(fn.decoders.image(jpegs)), labels  # read twice (shape and device): bound to a name first


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def maybe_sizes(root, sizes=True):
    jpegs, labels = fn.readers.file(file_root=root)
    # bound before the statement, its input would be decoded also where the condition is false
    return (fn.shapes(fn.decoders.image(jpegs)) if sizes else jpegs), labels


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def other_helper(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return jpegs, labels


pipe = other_helper("images")
pipe.build()
jpegs, labels = pipe.run()
print(to_array(labels))  # a project's own to_array: not DALI's test helper
