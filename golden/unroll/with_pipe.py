"""Pipeline(...) objects filled inside `with pipe:`: one in a factory function, one at module level."""

import nvidia.dali as dali
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import Pipeline


def create_val_pipe(root, batch_size, size=40):
    pipe = Pipeline(batch_size=batch_size, num_threads=2, device_id=0, prefetch_queue_depth=1)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=root, name="Reader")
        images = fn.decoders.image(jpegs, device="mixed")
        images = fn.resize(images, resize_shorter=size)
        images = fn.crop_mirror_normalize(images, crop=(32, 32), dtype=types.FLOAT,
                                          mean=[0.0, 0.0, 0.0], std=[255.0, 255.0, 255.0])
        pipe.set_outputs(images, labels)
    return pipe


def collect(root, steps):
    pipe = create_val_pipe(root, 4)
    pipe.build()
    return [pipe.run() for _ in range(steps)]


ROOT = "/data/images"
pipe = dali.Pipeline(4, 1, None, seed=5)
with pipe:
    jpegs, labels = fn.readers.file(file_root=ROOT, random_shuffle=True)
    pipe.set_outputs(fn.decoders.image(jpegs), labels)
