"""How many outputs pipe.run() gives depends on what the pipeline returns: a tuple is one output per
element, a single DataNode one output (a list is an error in DALI 2.4.0 pipeline mode). The migrated
generator yields tuples of the same arity."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def

AUGMENTATIONS = [lambda images: fn.flip(images, horizontal=1), lambda images: fn.flip(images, vertical=1)]


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def gallery(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    return tuple([labels, images] + [aug(images) for aug in AUGMENTATIONS])


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def named_tuple(root):
    jpegs, labels = fn.readers.file(file_root=root)
    outs = (labels, fn.decoders.image(jpegs))
    return outs


def helper_outputs(jpegs, labels):
    return labels, fn.decoders.image(jpegs)


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def from_helper(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return helper_outputs(jpegs, labels)


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def from_helper_named(root):
    jpegs, labels = fn.readers.file(file_root=root)
    outs = helper_outputs(jpegs, labels)
    return outs


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def one(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return labels
