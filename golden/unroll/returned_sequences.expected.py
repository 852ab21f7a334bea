"""Outputs returned as a sequence built by an expression: a starred list in a tuple, joined tuples, a slice of
a tuple. Pipeline mode expanded the tuple into that many outputs; each step yields them as a tuple, not one
output holding a list."""

import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


@Prefetch(depth=2)
def starred(root, *, batch_size=2):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs)
            views = [ndd.resize(images, size=s) for s in (32, 64)]
            yield tuple((*views, labels))


@Prefetch(depth=2)
def joined(root, *, batch_size=2):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs)
            views = (ndd.resize(images, size=32), ndd.flip(images))
            yield tuple(tuple(views) + (labels,))


@Prefetch(depth=2)
def sliced(root, *, batch_size=2):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs)
            views = (images, ndd.flip(images), labels)
            yield tuple(views[:2])
