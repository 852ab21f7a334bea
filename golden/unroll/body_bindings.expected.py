"""Names a pipeline body binds other than with `=`: a walrus inside an operator's arguments, a `with ... as`
block that reads a file once, an annotated assignment, an augmented one. A statement that reads a name the
steps bind (k below) stays in the steps; what reads only names bound before the steps (the file's first line)
is still computed once, before them."""

import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


@Prefetch(depth=2)
def scaled(root, notes, *, batch_size=2):
    with open(notes) as handle:
        width = len(handle.readline())
    offset: int = width + 1
    offset += 1
    reader = ndd.readers.File(file_root=root, name="Reader")
    while True:
        for images, labels in reader.next_epoch(batch_size=batch_size):
            doubled = labels * (k := 2)
            shift = k + 1
            yield doubled + shift + offset, images


def collect(root, notes, steps):
    pipe = scaled(root, notes)
    return [next(pipe) for _ in range(steps)]
