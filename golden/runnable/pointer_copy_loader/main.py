"""A detection data loader, as detection training code writes it: the pipeline decodes, resizes and
normalizes the images and also gives their ids, their decoded sizes and the resized images; the loader
copies each image into a torch tensor through the tensor's pointer and computes the resize ratio the
boxes are scaled by."""

import argparse
import ctypes

import torch
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(device_id=0)
def detection_pipe(root, size):
    jpegs, ids = fn.readers.file(file_root=root, random_shuffle=True, seed=11, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
    sizes = fn.shapes(images)
    resized = fn.resize(images, resize_x=size, resize_y=size)
    normalized = fn.crop_mirror_normalize(resized, dtype=types.FLOAT, output_layout="CHW",
                                          mean=[104.0, 117.0, 123.0], std=[58.0, 57.0, 57.5])
    return normalized, ids, sizes, resized


class DaliDataIterator:
    def __init__(self, root, batch_size, size, device):
        self.batch_size = batch_size
        self.device = device
        self.pipe = detection_pipe(root, size, batch_size=batch_size, num_threads=2)
        self.pipe.build()

    def __iter__(self):
        return self

    def __next__(self):
        dali_data, dali_ids, dali_attrs, dali_resize_img = self.pipe.run()
        data, ids, ratios = [], [], []
        for batch in range(self.batch_size):
            id = int(dali_ids.at(batch)[0])

            # Convert the DALI sample to a torch tensor
            dali_tensor = dali_data[batch]
            datum = torch.zeros(dali_tensor.shape(), dtype=torch.float, device=torch.device(self.device))
            c_type_pointer = ctypes.c_void_p(datum.data_ptr())
            dali_tensor.copy_to_external(c_type_pointer)

            # The ratio the boxes are scaled by
            prior_size = dali_attrs.as_cpu().at(batch)
            resized_size = dali_resize_img[batch].shape()
            ratios.append(max(resized_size) / max(prior_size))
            data.append(datum)
            ids.append(id)
        labels = torch.empty(self.batch_size, dtype=torch.int32)
        dali_ids.copy_to_external(ctypes.c_void_p(labels.data_ptr()))
        return torch.stack(data), ids, ratios, labels


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    loader = DaliDataIterator(args.data, batch_size=4, size=10, device=args.device)
    for step, (data, ids, ratios, labels) in zip(range(4), loader):
        print(step, tuple(data.shape), data.dtype, round(float(data.sum()), 3), round(float(data.std()), 4), ids,
              [round(float(r), 4) for r in ratios], labels.tolist())
