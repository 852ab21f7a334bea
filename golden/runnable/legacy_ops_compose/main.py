import sys

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class AugmentPipeline(Pipeline):
    """Legacy ops objects, the augmentations chained with ops.Compose (a CPU resize, then a GPU crop-mirror-normalize:
    Compose moves the data to the GPU between them), and a random chain with its own seed."""

    def __init__(self, root, batch_size, num_threads, device_id, crop):
        super().__init__(batch_size, num_threads, device_id, seed=7)
        self.input = ops.readers.File(file_root=root, random_shuffle=False)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.aug = ops.Compose([
            ops.Resize(resize_x=crop + 8, resize_y=crop + 8),
            ops.CropMirrorNormalize(device="gpu", crop=(crop, crop), mean=[0.0, 0.0, 0.0],
                                    std=[255.0, 255.0, 255.0], output_layout="CHW", dtype=types.FLOAT),
        ])
        self.random_aug = ops.Compose([ops.RandomResizedCrop(size=(crop, crop), seed=5), ops.Flip(horizontal=1)])
        self.gray = ops.Compose([ops.ColorSpaceConversion(image_type=types.RGB, output_type=types.GRAY)])

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        images = self.decode(jpegs)
        return self.aug(images), self.random_aug(images), self.gray(images), labels


if __name__ == "__main__":
    pipe = AugmentPipeline(sys.argv[1], batch_size=2, num_threads=1, device_id=0, crop=12)
    pipe.build()
    print("epoch size", pipe.epoch_size("Reader"))
    for step in range(3):
        normalized, cropped, gray, labels = pipe.run()
        arr = normalized.as_cpu().as_array()
        print(step, arr.shape, arr.dtype, round(float(arr.sum()), 3), labels.as_array().ravel().tolist())
        print(step, "random chain", [cropped.at(i).shape for i in range(len(cropped))])
        print(step, "gray", [(gray.at(i).shape, int(gray.at(i).sum())) for i in range(len(gray))])
