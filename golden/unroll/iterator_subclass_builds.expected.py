import contextlib
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import EpochIterator, Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


class Loader(EpochIterator):
    # the pipeline is built in __init__, not given: it becomes a ReaderStream, the class an EpochIterator
    def __init__(self, root, batch_size, drop_last):
        def arrays(*, batch_size=batch_size, num_threads=2, device_id=0, seed=None):
            reader = ndd.readers.Numpy(file_root=root, name="Reader", max_batch_size=batch_size)

            @Prefetch(depth=2)
            def steps():
                with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
                    if num_threads is not None and num_threads > ndd.get_num_threads():
                        ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
                    while True:
                        for (x,) in reader.next_epoch(batch_size=batch_size):
                            yield x, x * 2

            return ReaderStream(steps(), {"Reader": reader}, batch_size)

        policy = "DROP" if drop_last else "PARTIAL"
        super().__init__(arrays(), ["x", "twice"], reader_name="Reader", last_batch_policy=policy)


def loader(root):
    return Loader(root, 4, False)
