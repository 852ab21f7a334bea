"""Two pipelines: the second one's graph is written inside `with pipe:` of the first, already running."""

import sys

import numpy as np
from nvidia.dali import fn, types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.types import Constant


def summary(name, batch):
    arrays = [np.array(batch.at(i)) for i in range(len(batch))]
    print(f"{name}: {arrays[0].dtype} {[a.shape for a in arrays]} sums {[int(a.astype(np.int64).sum()) for a in arrays]}")


def widen(mask):
    return fn.cat(mask, mask, mask, axis=2)


root = sys.argv[1]
pipe = Pipeline(batch_size=3, num_threads=2, device_id=0)
with pipe:
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.resize(fn.decoders.image(jpegs, output_type=types.RGB), resize_x=6, resize_y=4)
    pipe.set_outputs(images, labels)
pipe.build()
images_batch, labels_batch = pipe.run()
summary("pipe images", images_batch)

masks_pipe = Pipeline(batch_size=3, num_threads=2, device_id=0)
with pipe:
    jpegs, _ = fn.readers.file(file_root=root)
    images = fn.resize(fn.decoders.image(jpegs, output_type=types.RGB), resize_x=6, resize_y=4)
    gray = fn.color_space_conversion(images, image_type=types.RGB, output_type=types.GRAY)
    dark, light = widen(gray < 124), widen(gray > 131)
    middle = True ^ (dark | light)
    blended = dark * fn.brightness_contrast(images, brightness=2) + light * fn.brightness_contrast(images, brightness=0.5) \
        + middle * images
    masks_pipe.set_outputs(blended, middle * Constant(255).uint8())
masks_pipe.build()
for step in range(3):
    blended_batch, mask_batch = masks_pipe.run()
    summary(f"step {step} blended", blended_batch)
    summary(f"step {step} mask", mask_batch)
images_batch, labels_batch = pipe.run()
summary("pipe images again", images_batch)
print("labels", labels_batch.as_array().ravel().tolist())
