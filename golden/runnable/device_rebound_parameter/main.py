"""Decoding images and their grayscale masks on the device a data generator is told to use.

The pipeline function takes the device by name and rebinds it to the decoder's device, as segmentation data
generators do; a sharded run on the CPU reads the second shard. The generator class builds a pipeline of its
own, defined inside its method, for validation."""

import argparse

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=3, num_threads=2, device_id=0)
def image_and_mask(data_dir, device="gpu", shard_id=0, num_shards=1):
    device = 'mixed' if 'gpu' in device.lower() else 'cpu'
    shard_id = 1 if 'cpu' in device else shard_id
    jpegs, labels = fn.readers.file(file_root=data_dir, shard_id=shard_id, num_shards=num_shards)
    images = fn.decoders.image(jpegs, device=device, output_type=types.RGB)
    masks = fn.decoders.image(jpegs, device=device, output_type=types.GRAY)
    images = fn.resize(images, resize_x=6, resize_y=6)
    masks = fn.resize(masks, resize_x=6, resize_y=6)
    if device != 'cpu':
        labels = labels.gpu()
    return images, masks, labels


class DataGenerator:
    def __init__(self, data_dir, device):
        self.data_dir = data_dir
        self.device = device

    def validation(self, batch_size):
        data_dir = self.data_dir

        @pipeline_def(batch_size=batch_size, num_threads=2, device_id=0)
        def validation_pipe(device):
            device = "mixed" if "gpu" in device.lower() else "cpu"
            jpegs, labels = fn.readers.file(file_root=data_dir)
            return fn.decoders.image(jpegs, device=device, output_type=types.GRAY), labels

        return validation_pipe(self.device)


def as_numpy(batch):
    batch = batch.as_cpu()
    return [np.array(batch.at(i)) for i in range(len(batch))]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--device", default="GPU")
    args = parser.parse_args()
    pipe = image_and_mask(args.data, device=args.device, num_shards=2)
    pipe.build()
    for step in range(3):
        images, masks, labels = pipe.run()
        images, masks = as_numpy(images), as_numpy(masks)
        print(step, [x.shape for x in images], [int(x.sum()) for x in images], [int(m.sum()) for m in masks],
              np.array(labels.as_tensor()).ravel().tolist())
    validation = DataGenerator(args.data, args.device).validation(4)
    validation.build()
    for step in range(2):
        images, labels = validation.run()
        print("validation", step, [x.shape for x in as_numpy(images)], np.array(labels.as_tensor()).ravel().tolist())
