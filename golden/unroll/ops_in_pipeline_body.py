"""Operator objects made in a @pipeline_def body and called there, as a segmentation loader crops images
and masks at the same random places: one seed the body draws, given to the random op and (ignored) to the
crop's calls."""

import random

import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def
def pairs(image_files, mask_files, size):
    seed = random.randint(1, 1 << 30)  # the same for images and masks
    images, _ = fn.readers.file(files=image_files, seed=seed)
    masks, _ = fn.readers.file(files=mask_files, seed=seed)
    images = fn.decoders.image(images, device="mixed")
    masks = fn.decoders.image(masks, device="mixed")

    crop = ops.Crop(crop=size, output_dtype=types.FLOAT, name="cropper")
    position = ops.random.Uniform(range=(0.0, 1.0), seed=seed)
    unused = ops.Flip(horizontal=1)  # never called

    images = crop(images, crop_pos_x=position(), crop_pos_y=position(), seed=seed)
    masks = crop(masks, crop_pos_x=position(), crop_pos_y=position(), seed=seed)
    return images, masks


def loader(images, masks):
    pipe = pairs(images, masks, 64, batch_size=2, num_threads=2, device_id=0)
    pipe.build()
    return [pipe.run() for _ in range(2)]
