"""Readers keep name= (it identifies them for epoch sizes and checkpoints) but lose the other two."""

import nvidia.dali.experimental.dynamic as ndd


def read(root):
    # dali-migrate: DM104 ndd.readers.File is a stateful reader: create it once and iterate reader.next_epoch(batch_size=...); calling it does not return batches
    return ndd.readers.File(file_root=root, name="Reader", seed=7)
