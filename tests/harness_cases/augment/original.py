"""Image classification with a random mirror, pipeline mode (@pipeline_def)."""

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=7)
def augment(root, size=(24, 24)):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=size)
    mirror = fn.random.coin_flip(probability=0.5)
    images = fn.crop_mirror_normalize(images, crop=(16, 16), mirror=mirror, dtype=types.FLOAT,
                                      mean=[128.0, 128.0, 128.0], std=[64.0, 64.0, 64.0])
    return images, labels


if __name__ == "__main__":
    raise SystemExit("the harness must not run this block")
