"""Style 2: a Pipeline object built in a factory, its graph defined in a `with pipe:` block."""

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import Pipeline


def with_block_pipe(root, batch_size=4):
    pipe = Pipeline(batch_size=batch_size, num_threads=2, device_id=None, seed=5)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=root, pad_last_batch=True)
        images = fn.decoders.image(jpegs)
        images = fn.crop_mirror_normalize(
            images,
            crop=(24, 24),
            dtype=types.FLOAT,
            mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
            std=[0.229 * 255, 0.224 * 255, 0.225 * 255],
        )
        pipe.set_outputs(images, labels)
    return pipe
