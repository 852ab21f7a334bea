"""Copies into torch tensors through a raw pointer (as detection training loaders write them): the sample's
bytes go to ``ctypes.c_void_p(t.data_ptr())``. copy_to_external wrote them unconverted whatever t's dtype
and shape, so the copy becomes ``d = data.torch()`` and ``t.view(d.dtype).view_as(d).copy_(d)``; the pointer
statement goes when nothing else reads it. A tensor rebound between the pointer and the copy is not the one
the pointer points to: that copy stays marked (and ``import ctypes`` with it)."""

import ctypes

import torch
import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


@Prefetch(depth=2)
def detection_pipe(root, *, batch_size=2):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs, device="gpu")
            sizes = ndd.as_batch(images.shape, dtype=ndd.int64, device=images.device)
            resized = ndd.resize(images, resize_x=8, resize_y=8)
            normalized = ndd.crop_mirror_normalize(resized, dtype=types.FLOAT, mean=[0.0] * 3, std=[255.0] * 3)
            yield normalized, labels, sizes, resized


class DetectionLoader:
    def __init__(self, root, batch_size):
        self.batch_size = batch_size
        self.pipe = detection_pipe(root, batch_size=batch_size)

    def __iter__(self):
        return self

    def __next__(self):
        dali_data, dali_ids, dali_attrs, dali_resize_img = next(self.pipe)
        data, ids, ratios = [], [], []
        labels = torch.empty(self.batch_size, dtype=torch.int32)
        torch_data = dali_ids.torch()
        labels.view(torch_data.dtype).view_as(torch_data).copy_(torch_data)  # the whole batch, one sample after another
        for batch in range(self.batch_size):
            id = int(np.array(dali_ids.select(batch))[0])
            # Convert the sample to torch
            dali_tensor = dali_data.select(batch)
            datum = torch.zeros(list(dali_tensor.shape), dtype=torch.float, device=torch.device('cuda'))
            torch_data = dali_tensor.torch()
            datum.view(torch_data.dtype).view_as(torch_data).copy_(torch_data)
            prior_size = np.array(dali_attrs.cpu().select(batch))
            resized_size = list(dali_resize_img.select(batch).shape)
            ratios.append(max(resized_size) / max(prior_size))
            data.append(datum)
            ids.append(id)
        return torch.stack(data), ids, ratios, labels


# dali-migrate: DM230 plain_pipe stays in pipeline mode with everything that uses it: line 67: TensorCPU.copy_to_external() has no ndd.Tensor counterpart; its pointer is not ctypes.c_void_p(t.data_ptr()) of a torch tensor t made in the call or in the statement before it (t not rebound between): the same copy into t is d = data.torch(); t.view(d.dtype).view_as(d).copy_(d) (raw bytes, unconverted)
@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def plain_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return fn.resize(fn.decoders.image(jpegs), resize_x=4, resize_y=4), labels


def read_kept(root):
    pipe = plain_pipe(root)
    pipe.build()
    images, _ = pipe.run()
    out = torch.zeros((2, 4, 4, 3), dtype=torch.uint8)
    pointer = ctypes.c_void_p(out[0].data_ptr())
    out = out.clone()  # another tensor: the pointer still points into the first one
    # dali-migrate: DM122 TensorCPU.copy_to_external() has no ndd.Tensor counterpart; its pointer is not ctypes.c_void_p(t.data_ptr()) of a torch tensor t made in the call or in the statement before it (t not rebound between): the same copy into t is d = data.torch(); t.view(d.dtype).view_as(d).copy_(d) (raw bytes, unconverted)
    images[0].copy_to_external(pointer)
    return out
