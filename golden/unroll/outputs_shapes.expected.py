"""How many outputs pipe.run() gives depends on what the pipeline returns: a tuple is one output per
element, a single DataNode one output (a list is an error in DALI 2.4.0 pipeline mode). The migrated
generator yields tuples of the same arity."""

import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)

AUGMENTATIONS = [lambda images: ndd.flip(images, horizontal=1), lambda images: ndd.flip(images, vertical=1)]


@Prefetch(depth=2)
def gallery(root, *, batch_size=2):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs)
            yield tuple([labels, images] + [aug(images) for aug in AUGMENTATIONS])


@Prefetch(depth=2)
def named_tuple(root, *, batch_size=2):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            outs = (labels, ndd.decoders.image(jpegs))
            yield tuple(outs)


def helper_outputs(jpegs, labels):
    return labels, ndd.decoders.image(jpegs)


@Prefetch(depth=2)
def from_helper(root, *, batch_size=2):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            outputs = helper_outputs(jpegs, labels)
            yield tuple(outputs) if isinstance(outputs, tuple) else (outputs,)


@Prefetch(depth=2)
def from_helper_named(root, *, batch_size=2):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            outs = helper_outputs(jpegs, labels)
            yield tuple(outs)


@Prefetch(depth=2)
def one(root, *, batch_size=2):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield (labels,)
