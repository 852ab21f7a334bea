"""Iterating a pipeline output gives its samples in both modes (a TensorList's TensorCPUs, a Batch's Tensors,
DALI 2.4.0: ``Batch.__iter__`` is ``iter(self.tensors)``), so loops over outputs migrate: directly, through
``enumerate``/``zip`` (also nested), and in comprehensions. Each sample's methods become the Tensor's. ``tl.at(0)``
is a numpy array in pipeline mode: iterating it iterates a numpy copy of the sample (its rows)."""

import numpy as np
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def images_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return fn.decoders.image(jpegs), labels


def show(root):
    pipe = images_pipe(root)
    pipe.build()
    images, labels = pipe.run()
    for image in images:
        print(image.shape(), image.layout(), np.array(image).mean())
    for index, (image, label) in enumerate(zip(images, labels)):
        print(index, image.shape()[0], np.asarray(label))
    return [np.asarray(label).item() for label in labels]


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def rows_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return fn.decoders.image(jpegs)


def rows(root):
    pipe = rows_pipe(root)
    pipe.build()
    (images,) = pipe.run()
    return [row for row in images.at(0)]
