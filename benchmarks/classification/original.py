"""The image-classification benchmark pipeline, pipeline mode."""

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


@pipeline_def(batch_size=16, num_threads=2, device_id=0, seed=1234)
def classification(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=7, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed")
    images = fn.resize(images, size=(128, 128))
    images = fn.crop_mirror_normalize(images, crop=(112, 112), mean=MEAN, std=STD, dtype=types.FLOAT,
                                      output_layout="CHW")
    return images, labels
