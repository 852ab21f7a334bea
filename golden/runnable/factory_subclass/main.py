"""A Pipeline subclass with define_graph, created by a factory and iterated by its caller."""

import sys

import numpy as np
from nvidia.dali import fn, types
from nvidia.dali.pipeline import Pipeline


class ValidationPipeline(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir, crop):
        super().__init__(batch_size, num_threads, device_id, seed=12)
        self.data_dir = data_dir
        self.crop = crop

    def define_graph(self):
        jpegs, labels = fn.readers.file(file_root=self.data_dir, name="Reader")
        images = fn.decoders.image(jpegs, device="mixed")
        images = fn.resize(images, resize_x=self.crop, resize_y=self.crop)
        images = fn.crop_mirror_normalize(images.gpu(), dtype=types.FLOAT, output_layout="HWC",
                                          mean=[0.0, 0.0, 0.0], std=[255.0, 255.0, 255.0])
        return images, labels


def get_val_pipeline(data_dir, batch_size=5):
    pipe = ValidationPipeline(batch_size, num_threads=2, device_id=0, data_dir=data_dir, crop=10)
    pipe.build()
    return pipe


if __name__ == "__main__":
    pipe = get_val_pipeline(sys.argv[1])
    size = pipe.epoch_size("Reader")
    print("samples per epoch", size, "batch size", pipe.max_batch_size)
    seen = 0
    while seen < size:
        images, labels = pipe.run()
        images = images.as_cpu()
        seen += len(images)
        print("batch", images.as_array().shape, "max", round(float(images.as_array().max()), 5),
              "labels", [int(labels.at(i)[0]) for i in range(len(labels))])
    print("seen", seen)
