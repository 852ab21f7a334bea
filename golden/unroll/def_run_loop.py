"""@pipeline_def with decorator arguments, consumed by a build()/run() loop."""

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=4, num_threads=2, device_id=0, seed=3)
def classifier_pipe(root, size=48):
    """Decode, resize and normalise; labels from the folder names."""
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=42, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
    images = fn.resize(images, resize_x=size, resize_y=size)
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, mean=[128.0, 128.0, 128.0],
                                      std=[64.0, 64.0, 64.0], output_layout="CHW")
    return images, labels


def collect(root, steps):
    pipe = classifier_pipe(root)
    pipe.build()
    outputs = []
    for _ in range(steps):
        images, labels = pipe.run()
        outputs.append((images, labels))
    return outputs
