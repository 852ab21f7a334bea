"""A user iterator class with its own copy of the plugin's feed_ndarray, which copies through a raw pointer:
the copy becomes a view of the torch tensor as the data's dtype and shape (the same bytes), so the class and
its pipeline migrate, and `import ctypes` goes with its last use."""

import ctypes

import torch
from nvidia.dali import fn, pipeline_def


def feed_ndarray(dali_tensor, arr):
    """The iterator's own copy of the plugin's helper: a raw copy through a pointer."""
    dali_tensor.copy_to_external(ctypes.c_void_p(arr.data_ptr()))
    return arr


@pipeline_def(batch_size=8, num_threads=2, device_id=0)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return fn.resize(fn.decoders.image(jpegs), resize_x=64, resize_y=64), labels


class TorchLoader(object):
    def __init__(self, pipelines, size):
        if not isinstance(pipelines, list):
            pipelines = [pipelines]
        self._pipes = pipelines
        self._size = size
        for p in self._pipes:
            p.build()
        self._counter = 0

    def __next__(self):
        if self._counter >= self._size:
            raise StopIteration
        images, labels = self._pipes[0].run()
        images = images.as_tensor()
        out = torch.zeros(images.shape(), dtype=torch.uint8)
        feed_ndarray(images, out)
        self._counter += 8
        return out


loader = TorchLoader(train_pipe("/data"), 64)
