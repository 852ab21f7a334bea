"""build() calls share a line with each other or with other statements: each is dropped alone."""

import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


@Prefetch(depth=2)
def labels_pipe(root, *, batch_size=2):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield (labels,)


def main(root):
    p = labels_pipe(root)
    q = labels_pipe(root)
    steps = 2
    return [(next(p), next(q)) for _ in range(steps)]
