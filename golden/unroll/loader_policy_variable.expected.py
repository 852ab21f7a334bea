"""A last-batch policy kept in a variable: the tool cannot tell how the epoch ends, so the iterator is left."""

import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import EpochIterator, Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


def pipe(root, *, batch_size=4):
    reader = ndd.readers.Numpy(file_root=root, name="Reader", max_batch_size=batch_size)

    @Prefetch(depth=2)
    def steps():
        while True:
            for (arrays,) in reader.next_epoch(batch_size=batch_size):
                yield (arrays,)

    return ReaderStream(steps(), {"Reader": reader}, batch_size)


def loader(root, policy="DROP"):
    p = pipe(root)
    return EpochIterator([p], ["data"], reader_name="Reader", last_batch_policy=policy)
