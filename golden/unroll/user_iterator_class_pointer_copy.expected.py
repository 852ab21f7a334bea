"""A user iterator class with its own copy of the plugin's feed_ndarray, which copies through a raw pointer:
the copy becomes a view of the torch tensor as the data's dtype and shape (the same bytes), so the class and
its pipeline migrate, and `import ctypes` goes with its last use."""

import torch
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


def feed_ndarray(dali_tensor, arr):
    """The iterator's own copy of the plugin's helper: a raw copy through a pointer."""
    torch_data = dali_tensor.torch()
    arr.view(torch_data.dtype).view_as(torch_data).copy_(torch_data)
    return arr


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


@Prefetch(depth=2)
def train_pipe(root, *, batch_size=8):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield ndd.resize(ndd.decoders.image(jpegs), resize_x=64, resize_y=64), labels


class TorchLoader(object):
    def __init__(self, pipelines, size):
        if not isinstance(pipelines, list):
            pipelines = [pipelines]
        self._pipes = pipelines
        self._size = size
        self._counter = 0

    def __next__(self):
        if self._counter >= self._size:
            raise StopIteration
        images, labels = next(self._pipes[0])
        images = ndd.as_tensor(images)
        out = torch.zeros(list(images.shape), dtype=torch.uint8)
        feed_ndarray(images, out)
        self._counter += 8
        return out


loader = TorchLoader(train_pipe("/data"), 64)
