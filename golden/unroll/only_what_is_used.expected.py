"""Several pipelines in one module: the generators take only the options they use, and the thread pool
is grown once, to the largest literal num_threads (2), before the first pipeline. (Thread counts stay at 2:
tests load this after other DALI work, and growing the pool far past the CPU count then can crash DALI 2.4.)"""

import os
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)

WORKERS = int(os.environ.get("WORKERS", "2"))


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


@Prefetch(depth=2)
def train_pipe(root, *, batch_size=4):
    reader = ndd.readers.File(file_root=root, random_shuffle=True, seed=5)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield ndd.resize(ndd.decoders.image(jpegs), resize_x=16, resize_y=16), labels


@Prefetch(depth=2)
def val_pipe(root, *, batch_size=4):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield ndd.decoders.image(jpegs), labels


@Prefetch(depth=2)
def worker_pipe(root, *, batch_size=4, num_threads=None):
    if num_threads is not None and num_threads > ndd.get_num_threads():
        ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield (labels,)


def collect(root, steps):
    train = train_pipe(root)
    val = val_pipe(root)
    workers = worker_pipe(root, num_threads=WORKERS)
    for pipe in (train, val, workers):
        pass
    return [next(train) + next(val) + next(workers) for _ in range(steps)]
