"""A module-level Pipeline object defined with `with pipe:` and set_outputs."""

import os

import nvidia.dali.fn as fn
from nvidia.dali.pipeline import Pipeline

ROOT = os.environ["DALI_MIGRATE_HARNESS_DATA"]

pipe = Pipeline(batch_size=3, num_threads=2, device_id=None, seed=5)
with pipe:
    jpegs, labels = fn.readers.file(file_root=ROOT, random_shuffle=True, seed=21)
    images = fn.decoders.image(jpegs)
    small = fn.resize(images, resize_shorter=20)
    pipe.set_outputs(small, labels)
