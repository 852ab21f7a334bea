"""Several pipelines in one module: the generators take only the options they use, and the thread pool
is grown once, to the largest literal num_threads (2), before the first pipeline. (Thread counts stay at 2:
tests load this after other DALI work, and growing the pool far past the CPU count then can crash DALI 2.4.)"""

import os

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def

WORKERS = int(os.environ.get("WORKERS", "2"))


@pipeline_def(batch_size=4, num_threads=1, device_id=0, seed=9)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=5)
    return fn.resize(fn.decoders.image(jpegs), resize_x=16, resize_y=16), labels


@pipeline_def(batch_size=4, device_id=None)
def val_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return fn.decoders.image(jpegs), labels


@pipeline_def(batch_size=4)
def worker_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return (labels,)


def collect(root, steps):
    train = train_pipe(root, num_threads=2, device_id=0)
    val = val_pipe(root, num_threads=1, device_id=None, seed=123)
    workers = worker_pipe(root, num_threads=WORKERS)
    for pipe in (train, val, workers):
        pipe.build()
    return [train.run() + val.run() + workers.run() for _ in range(steps)]
