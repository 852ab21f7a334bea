"""Iterating a pipeline output gives its samples in both modes (a TensorList's TensorCPUs, a Batch's Tensors,
DALI 2.4.0: ``Batch.__iter__`` is ``iter(self.tensors)``), so loops over outputs migrate: directly, through
``enumerate``/``zip`` (also nested), and in comprehensions. Each sample's methods become the Tensor's. ``tl.at(0)``
is a numpy array in pipeline mode: iterating it iterates a numpy copy of the sample (its rows)."""

import numpy as np
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


@Prefetch(depth=2)
def images_pipe(root, *, batch_size=2):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield ndd.decoders.image(jpegs), labels


def show(root):
    pipe = images_pipe(root)
    images, labels = next(pipe)
    for image in images:
        print(list(image.shape), image.layout or "", np.array(image).mean())
    for index, (image, label) in enumerate(zip(images, labels)):
        print(index, list(image.shape)[0], np.asarray(label))
    return [np.asarray(label).item() for label in labels]


@Prefetch(depth=2)
def rows_pipe(root, *, batch_size=2):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield (ndd.decoders.image(jpegs),)


def rows(root):
    pipe = rows_pipe(root)
    (images,) = next(pipe)
    return [row for row in np.array(images.select(0))]
