"""A pipeline saved for DALI's C++ API (a Triton DALI backend model): pipe.serialize() needs the pipeline's
graph, and dynamic mode has none, so this file stays marked by design."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def augment_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    images = fn.flip(images, horizontal=1)
    return images, labels


def save_for_server(root, path):
    pipe = augment_pipe(root)
    pipe.serialize(filename=path)
