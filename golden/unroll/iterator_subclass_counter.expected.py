import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import EpochIterator, Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


def files(root, *, batch_size=4):
    reader = ndd.readers.File(file_root=root, name="Reader", max_batch_size=batch_size)

    @Prefetch(depth=2)
    def steps():
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield jpegs, labels

    return ReaderStream(steps(), {"Reader": reader}, batch_size)


class Counting(EpochIterator):
    # the plugin's _counter already counts the batch it prepared at construction; the EpochIterator prepares and
    # counts it there too, so the subclass derives from it and computes the same
    def __init__(self, pipes):
        super().__init__(pipes, ["jpegs", "labels"], reader_name="Reader")

    def progress(self):
        return self._counter / self._size


def loader(root):
    return Counting(files(root))
