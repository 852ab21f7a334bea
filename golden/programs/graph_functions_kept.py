"""Graph functions the migration leaves: a reader function also used as a value, a reader function
whose call passes a computed argument, a seed that is not a literal."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def

SEED = 5


def reader(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return jpegs, labels


def flip(images):
    return fn.flip(images, horizontal=fn.random.coin_flip(seed=SEED))


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def computed_root(parent):
    jpegs, labels = reader(parent + "/train")
    return jpegs, labels


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def flipped():
    jpegs, labels = fn.readers.file(file_root="images")
    return flip(fn.decoders.image(jpegs)), labels


readers = [reader]
