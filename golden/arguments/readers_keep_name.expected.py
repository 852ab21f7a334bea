"""Readers keep name= (it identifies them for epoch sizes and checkpoints) but lose the other two."""

import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import ReaderStream  # written by dali-migrate (migrate --write recreates it)


def read(root, *, batch_size, seed=None):
    reader = ndd.readers.File(file_root=root, name="Reader", seed=7, max_batch_size=batch_size)

    def steps():
        while True:
            for outputs in reader.next_epoch(batch_size=batch_size):
                yield outputs

    return ReaderStream(steps(), {"Reader": reader}, batch_size)
