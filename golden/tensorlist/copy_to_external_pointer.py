"""Copies into torch tensors through a raw pointer (as detection training loaders write them): the sample's
bytes go to ``ctypes.c_void_p(t.data_ptr())``. copy_to_external wrote them unconverted whatever t's dtype
and shape, so the copy becomes ``d = data.torch()`` and ``t.view(d.dtype).view_as(d).copy_(d)``; the pointer
statement goes when nothing else reads it. A tensor rebound between the pointer and the copy is not the one
the pointer points to: that copy stays marked (and ``import ctypes`` with it)."""

import ctypes

import torch
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def detection_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="mixed")
    sizes = fn.shapes(images)
    resized = fn.resize(images, resize_x=8, resize_y=8)
    normalized = fn.crop_mirror_normalize(resized, dtype=types.FLOAT, mean=[0.0] * 3, std=[255.0] * 3)
    return normalized, labels, sizes, resized


class DetectionLoader:
    def __init__(self, root, batch_size):
        self.batch_size = batch_size
        self.pipe = detection_pipe(root, batch_size=batch_size)
        self.pipe.build()

    def __iter__(self):
        return self

    def __next__(self):
        dali_data, dali_ids, dali_attrs, dali_resize_img = self.pipe.run()
        data, ids, ratios = [], [], []
        labels = torch.empty(self.batch_size, dtype=torch.int32)
        dali_ids.copy_to_external(ctypes.c_void_p(labels.data_ptr()))  # the whole batch, one sample after another
        for batch in range(self.batch_size):
            id = int(dali_ids.at(batch)[0])
            # Convert the sample to torch
            dali_tensor = dali_data[batch]
            datum = torch.zeros(dali_tensor.shape(), dtype=torch.float, device=torch.device('cuda'))
            c_type_pointer = ctypes.c_void_p(datum.data_ptr())
            dali_tensor.copy_to_external(c_type_pointer)
            prior_size = dali_attrs.as_cpu().at(batch)
            resized_size = dali_resize_img[batch].shape()
            ratios.append(max(resized_size) / max(prior_size))
            data.append(datum)
            ids.append(id)
        return torch.stack(data), ids, ratios, labels


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
    images[0].copy_to_external(pointer)
    return out
