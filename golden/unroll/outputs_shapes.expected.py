"""How many outputs pipe.run() gives depends on what the pipeline returns: a tuple is one output per
element, a single DataNode one output (a list is an error in DALI 2.4.0 pipeline mode). The migrated
generator yields tuples of the same arity."""

import nvidia.dali.experimental.dynamic as ndd

AUGMENTATIONS = [lambda images: ndd.flip(images, horizontal=1), lambda images: ndd.flip(images, vertical=1)]


def gallery(root, *, batch_size=2, num_threads=1, device_id=None, seed=None):
    if num_threads is not None and num_threads > ndd.get_num_threads():
        ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs)
            yield tuple([labels, images] + [aug(images) for aug in AUGMENTATIONS])


def named_tuple(root, *, batch_size=2, num_threads=1, device_id=None, seed=None):
    if num_threads is not None and num_threads > ndd.get_num_threads():
        ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            outs = (labels, ndd.decoders.image(jpegs))
            yield tuple(outs)


def helper_outputs(jpegs, labels):
    return labels, ndd.decoders.image(jpegs)


def from_helper(root, *, batch_size=2, num_threads=1, device_id=None, seed=None):
    if num_threads is not None and num_threads > ndd.get_num_threads():
        ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            outputs = helper_outputs(jpegs, labels)
            yield tuple(outputs) if isinstance(outputs, tuple) else (outputs,)


def one(root, *, batch_size=2, num_threads=1, device_id=None, seed=None):
    if num_threads is not None and num_threads > ndd.get_num_threads():
        ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield (labels,)
