"""An optional DALI whose iterator class is derived from (a placeholder base without DALI), with the policy enum
imported in a nested `if`: the iterator and the policy members migrate, so their placeholders go too."""
import os
import contextlib
from dali_dynamic_compat import EpochIterator, Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)

HAVE_DALI = not os.environ.get("WITHOUT_DALI")

if HAVE_DALI:
    from nvidia.dali import __version__ as dali_version
    import nvidia.dali.experimental.dynamic as ndd

    if int(dali_version.split(".")[0]) >= 1:
        pass
else:
    ndd = None


class Loader(EpochIterator):
    def __init__(self, pipes, reader_name, drop=False):
        policy = "DROP" if drop else "PARTIAL"
        super().__init__(pipes, ["data", "label"], reader_name=reader_name, last_batch_policy=policy)


def loader(root, drop):
    def pipe(*, batch_size=2, num_threads=1, device_id=None, seed=None):
        reader = ndd.readers.Numpy(file_root=root, name="Reader", max_batch_size=batch_size)

        @Prefetch(depth=2)
        def steps():
            with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
                if num_threads is not None and num_threads > ndd.get_num_threads():
                    ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
                while True:
                    for (data,) in reader.next_epoch(batch_size=batch_size):
                        yield data, data * 2

        return ReaderStream(steps(), {"Reader": reader}, batch_size)

    return Loader(pipe(), "Reader", drop)
