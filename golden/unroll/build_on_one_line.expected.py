"""build() calls share a line with each other or with other statements: each is dropped alone."""

import nvidia.dali.experimental.dynamic as ndd


def labels_pipe(root, *, batch_size=2, num_threads=1, device_id=None, seed=None):
    if num_threads is not None and num_threads > ndd.get_num_threads():
        ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield (labels,)


def main(root):
    p = labels_pipe(root)
    q = labels_pipe(root)
    steps = 2
    return [(next(p), next(q)) for _ in range(steps)]
