"""A realistic training pipeline, pipeline mode: ImageNet-style random crops to 224 in batches of 64."""

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


@pipeline_def(batch_size=64, num_threads=2, device_id=0, seed=1234)
def training(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=7, name="Reader")
    images = fn.decoders.image_random_crop(jpegs, device="mixed", random_area=[0.1, 1.0])
    images = fn.resize(images, size=(224, 224))
    mirror = fn.random.coin_flip(probability=0.5)
    images = fn.crop_mirror_normalize(images, mirror=mirror, mean=MEAN, std=STD, dtype=types.FLOAT,
                                      output_layout="CHW")
    return images, labels
