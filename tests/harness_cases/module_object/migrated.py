"""The module-level pipeline, dynamic mode: the same name bound to a generator."""

import os

import nvidia.dali.experimental.dynamic as ndd

ROOT = os.environ["DALI_MIGRATE_HARNESS_DATA"]


def _pipe(batch_size=3, num_threads=2, seed=5):
    ndd.set_num_threads(num_threads)
    ndd.random.set_seed(seed)
    reader = ndd.readers.File(file_root=ROOT, random_shuffle=True, seed=21)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs)
            small = ndd.resize(images, resize_shorter=20)
            yield small, labels


pipe = _pipe()
