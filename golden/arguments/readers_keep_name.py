"""Readers keep name= (it identifies them for epoch sizes and checkpoints) but lose the other two."""

import nvidia.dali.fn as fn


def read(root):
    return fn.readers.file(file_root=root, name="Reader", preserve=True, bytes_per_sample_hint=[1024],
                           seed=7)
