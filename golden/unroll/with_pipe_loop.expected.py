"""`with pipe:` inside a loop: each pipeline keeps the values its loop iteration gave it."""

import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


def one_pipe_per_size(root, sizes):
    pipes = []
    for size in sizes:
        @Prefetch(depth=2)
        def pipe_steps(root, size, *, batch_size=2):
            if ndd.get_num_threads() < 2:
                ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4
            reader = ndd.readers.File(file_root=root)
            while True:
                for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                    images = ndd.resize(ndd.decoders.image(jpegs), resize_x=size, resize_y=size)
                    yield ndd.cast(images, dtype=types.FLOAT), labels
        pipe = pipe_steps(root, size)
        pipes.append(pipe)
    for pipe in pipes:
        pass
    return [next(pipe) for pipe in pipes]
