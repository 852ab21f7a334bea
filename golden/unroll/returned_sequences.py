"""Outputs returned as a sequence built by an expression: a starred list in a tuple, joined tuples, a slice of
a tuple. Pipeline mode expanded the tuple into that many outputs; each step yields them as a tuple, not one
output holding a list."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, seed=3)
def starred(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    views = [fn.resize(images, size=s) for s in (32, 64)]
    return (*views, labels)


@pipeline_def(batch_size=2, seed=3)
def joined(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    views = (fn.resize(images, size=32), fn.flip(images))
    return tuple(views) + (labels,)


@pipeline_def(batch_size=2, seed=3)
def sliced(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    views = (images, fn.flip(images), labels)
    return views[:2]
