"""Look at each sample of a batch by iterating the pipeline's outputs (as notebooks do to show or check images)."""
import sys

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def image_pipeline(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, resize_x=24, resize_y=16)
    scaled = fn.cast(images, dtype=types.FLOAT) * 0.5
    return images, scaled, labels


def describe(sample):
    array = np.array(sample)
    return f"{tuple(sample.shape())} {array.dtype} mean={array.mean():.3f}"


pipe = image_pipeline(sys.argv[1])
pipe.build()
for step in range(4):
    images, scaled, labels = pipe.run()
    for image in images:
        print(step, "image", describe(image))
    print(step, "labels", [int(np.asarray(label)[0]) for label in labels])
    for index, (image, half) in enumerate(zip(images, scaled)):
        assert np.allclose(np.asarray(image) * 0.5, np.asarray(half))
        print(step, index, "layout", image.layout(), "half sum", round(float(np.asarray(half).sum()), 1))
    print(step, "sizes", sorted(np.asarray(image).size for image in images))
