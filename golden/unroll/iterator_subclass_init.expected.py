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


class Loader(EpochIterator):
    # arguments of its own, the plugin's passed on by position: the fifth is fill_last_batch
    def __init__(self, pipelines, reader_name, auto_reset, fill, padded=False):
        super().__init__(pipelines, ["data", "label"], size=-1, reader_name=reader_name, last_batch_padded=padded, last_batch_policy=("FILL" if fill else "PARTIAL") if fill is not None else "FILL", auto_reset=auto_reset)

    def steps(self):
        return self._size // (self._num_gpus * self.batch_size)


class Named(EpochIterator):
    def __init__(self, names, pipes, drop=True):
        policy = "DROP" if drop else "PARTIAL"
        super(Named, self).__init__(pipes, names, reader_name="Reader", last_batch_policy=policy)


def loaders(root):
    first = Loader(files(root), "Reader", True, False)
    second = Named(["jpegs", "labels"], [files(root)], drop=False)
    return first, second
