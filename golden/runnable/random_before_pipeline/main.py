"""Random augmentation parameters drawn before the pipeline exists and used inside `with pipe:` (as
face-recognition training scripts do): they still belong to the pipeline, one value per sample."""

import sys

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


def make_loader(root, batch_size, augment):
    def scaled(images, factor):
        return images * factor

    brightness = fn.random.uniform(range=(0.5, 1.5), dtype=types.FLOAT)
    angle = fn.random.uniform(range=(-15.0, 15.0))
    pipe = Pipeline(batch_size=batch_size, num_threads=2, device_id=0, seed=21)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=root, name="reader")
        images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
        images = fn.resize(images, resize_x=12, resize_y=12)
        if augment:
            images = fn.rotate(images, angle=angle, keep_size=True)
        images = scaled(fn.cast(images, dtype=types.FLOAT), brightness)
        pipe.set_outputs(images, labels, brightness)
    pipe.build()
    return pipe


if __name__ == "__main__":
    for augment in (False, True):
        pipe = make_loader(sys.argv[1], 4, augment)
        steps = pipe.epoch_size("reader") // 4 + 1
        for step in range(steps):
            images, labels, brightness = pipe.run()
            factors = brightness.as_array().ravel()
            # one brightness per sample (a value broadcast to the batch would give 1 distinct value)
            print(f"augment {augment} step {step}: images {images.as_cpu().as_array().shape} "
                  f"{images.as_cpu().as_array().dtype} labels {labels.as_array().ravel().tolist()} "
                  f"distinct factors {len(set(factors.tolist()))} in range {bool(((factors >= 0.5) & (factors <= 1.5)).all())}")
