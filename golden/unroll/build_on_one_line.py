"""build() calls share a line with each other or with other statements: each is dropped alone."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def labels_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return labels


def main(root):
    p = labels_pipe(root)
    q = labels_pipe(root)
    p.build(); q.build()
    p.build(); steps = 2
    return [(p.run(), q.run()) for _ in range(steps)]
