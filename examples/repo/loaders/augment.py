"""A pipeline with a Python callback: fn.python_function has no dynamic-mode counterpart."""

import numpy as np
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


def invert(image):
    return np.ascontiguousarray(255 - image)


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def augment_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    images = fn.python_function(images, function=invert)
    return images, labels
