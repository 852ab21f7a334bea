"""@pipeline_def with decorator arguments, consumed by a build()/run() loop."""

import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


@Prefetch(depth=2)
def classifier_pipe(root, size=48, *, batch_size=4):
    """Decode, resize and normalise; labels from the folder names."""
    reader = ndd.readers.File(file_root=root, random_shuffle=True, seed=42, name="Reader")
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs, device="gpu", output_type=types.RGB)
            images = ndd.resize(images, resize_x=size, resize_y=size)
            images = ndd.crop_mirror_normalize(images, dtype=types.FLOAT, mean=[128.0, 128.0, 128.0],
                                              std=[64.0, 64.0, 64.0], output_layout="CHW")
            yield images, labels


def collect(root, steps):
    pipe = classifier_pipe(root)
    outputs = []
    for _ in range(steps):
        images, labels = next(pipe)
        outputs.append((images, labels))
    return outputs
