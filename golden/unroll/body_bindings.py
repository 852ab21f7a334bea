"""Names a pipeline body binds other than with `=`: a walrus inside an operator's arguments, a `with ... as`
block that reads a file once, an annotated assignment, an augmented one. A statement that reads a name the
steps bind (k below) stays in the steps; what reads only names bound before the steps (the file's first line)
is still computed once, before them."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def scaled(root, notes):
    images, labels = fn.readers.file(file_root=root, name="Reader")
    doubled = labels * (k := 2)
    shift = k + 1
    with open(notes) as handle:
        width = len(handle.readline())
    offset: int = width + 1
    offset += 1
    return doubled + shift + offset, images


def collect(root, notes, steps):
    pipe = scaled(root, notes)
    pipe.build()
    return [pipe.run() for _ in range(steps)]
