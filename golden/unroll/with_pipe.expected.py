"""Pipeline(...) objects filled inside `with pipe:`: one in a factory function, one at module level."""

import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


def create_val_pipe(root, batch_size, size=40):
    def pipe_steps(*, batch_size=batch_size):
        if ndd.get_num_threads() < 2:
            ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4
        reader = ndd.readers.File(file_root=root, name="Reader")
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                images = ndd.decoders.image(jpegs, device="gpu")
                images = ndd.resize(images, resize_shorter=size)
                images = ndd.crop_mirror_normalize(images, crop=(32, 32), dtype=types.FLOAT,
                                                  mean=[0.0, 0.0, 0.0], std=[255.0, 255.0, 255.0])
                yield images, labels
    pipe = pipe_steps()
    return pipe


def collect(root, steps):
    pipe = create_val_pipe(root, 4)
    return [next(pipe) for _ in range(steps)]


ROOT = "/data/images"


@Prefetch(depth=2)
def pipe_steps(*, batch_size=4, seed=5):
    reader = ndd.readers.File(file_root=ROOT, random_shuffle=True, seed=seed)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield ndd.decoders.image(jpegs), labels


pipe = pipe_steps()
