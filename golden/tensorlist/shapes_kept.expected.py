"""What the shapes and to_array rewrites do not cover stays marked."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def
from helpers import to_array


# dali-migrate: DM230 decoded_sizes stays in pipeline mode with everything that uses it: line 11: fn.shapes has no dynamic-mode counterpart: its input is not a name here (or it has arguments besides dtype= and a literal device=): bind the input to a name, then it becomes ndd.as_batch(x.shape, dtype=..., device=x.device)
@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def decoded_sizes(root):
    jpegs, labels = fn.readers.file(file_root=root)
    # dali-migrate: DM103 fn.shapes has no dynamic-mode counterpart: its input is not a name here (or it has arguments besides dtype= and a literal device=): bind the input to a name, then it becomes ndd.as_batch(x.shape, dtype=..., device=x.device)
    return fn.shapes(fn.decoders.image(jpegs)), labels  # its input is read twice: shape and device


# dali-migrate: DM230 other_helper stays in pipeline mode with everything that uses it: line 23: labels (a pipeline output (TensorList)) is passed to helpers.to_array, which dali-migrate cannot follow
@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def other_helper(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return jpegs, labels


pipe = other_helper("images")
pipe.build()
jpegs, labels = pipe.run()
# dali-migrate: DM231 labels (a pipeline output (TensorList)) is passed to helpers.to_array, which dali-migrate cannot follow
print(to_array(labels))  # a project's own to_array: not DALI's test helper
