"""DALI is optional here: the module imports it under try/except ImportError and binds placeholders
without it. The placeholders of names the migrated code no longer reads go; ndd is imported where DALI was."""
import numpy as np
import contextlib
from dali_dynamic_compat import EpochIterator, Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)

try:
    import nvidia.dali.experimental.dynamic as ndd
    HAVE_DALI = True
except (ImportError, ModuleNotFoundError):
    HAVE_DALI = False
    ndd = None


def loader(root):
    if not HAVE_DALI:
        raise RuntimeError("install DALI to load the data")

    def doubled(*, batch_size=2, num_threads=1, device_id=None, seed=None):
        reader = ndd.readers.Numpy(file_root=root, name="Reader", max_batch_size=batch_size)

        @Prefetch(depth=2)
        def steps():
            with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
                if num_threads is not None and num_threads > ndd.get_num_threads():
                    ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
                while True:
                    for (data,) in reader.next_epoch(batch_size=batch_size):
                        yield (data * 2,)

        return ReaderStream(steps(), {"Reader": reader}, batch_size)

    return EpochIterator(doubled(), ["x"], reader_name="Reader", last_batch_policy="PARTIAL")
