"""What the shapes and to_array rewrites do not cover stays marked."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)
from helpers import to_array


@Prefetch(depth=2)
def decoded_sizes(root, *, batch_size=4):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            shapes_input = ndd.decoders.image(jpegs)
            yield ndd.as_batch(shapes_input.shape, dtype=ndd.int64, device=shapes_input.device), labels


# dali-migrate: DM230 maybe_sizes stays in pipeline mode with everything that uses it: line 18: fn.shapes has no dynamic-mode counterpart: its input cannot be bound to a name before the statement here (it sits in a conditional expression, a lambda or a comprehension), or it has arguments besides dtype= and a literal device=: bind the input to a name, then it becomes ndd.as_batch(x.shape, dtype=..., device=x.device)
@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def maybe_sizes(root, sizes=True):
    jpegs, labels = fn.readers.file(file_root=root)
    # bound before the statement, its input would be decoded also where the condition is false
    # dali-migrate: DM103 fn.shapes has no dynamic-mode counterpart: its input cannot be bound to a name before the statement here (it sits in a conditional expression, a lambda or a comprehension), or it has arguments besides dtype= and a literal device=: bind the input to a name, then it becomes ndd.as_batch(x.shape, dtype=..., device=x.device)
    return (fn.shapes(fn.decoders.image(jpegs)) if sizes else jpegs), labels


# dali-migrate: DM230 other_helper stays in pipeline mode with everything that uses it: line 30: labels (a pipeline output (TensorList)) is passed to helpers.to_array, which dali-migrate cannot follow
@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def other_helper(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return jpegs, labels


pipe = other_helper("images")
pipe.build()
jpegs, labels = pipe.run()
# dali-migrate: DM231 labels (a pipeline output (TensorList)) is passed to helpers.to_array, which dali-migrate cannot follow
print(to_array(labels))  # a project's own to_array: not DALI's test helper
