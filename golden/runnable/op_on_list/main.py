"""Two crops of every image, resized and normalized together by giving the ops a list of batches."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def two_views(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
    left = fn.crop(images, crop=(16, 16), crop_pos_x=0.0, crop_pos_y=0.0)
    right = fn.crop(images, crop=(16, 16), crop_pos_x=1.0, crop_pos_y=1.0)
    views = fn.resize([left, right], resize_x=8, resize_y=8)
    views = fn.cast(views, dtype=types.FLOAT)
    return views[0], views[1], labels


if __name__ == "__main__":
    pipe = two_views(sys.argv[1])
    pipe.build()
    for step in range(2):
        left, right, labels = pipe.run()
        a, b = left.as_array(), right.as_array()
        print(f"step {step}: left {a.shape} {a.mean():.4f} right {b.shape} {b.mean():.4f} "
              f"labels {labels.as_array().ravel().tolist()}")
