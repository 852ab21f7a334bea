"""A pipeline body that reads seed (or batch_size...) from the function around it: the migrated generator takes the
pipeline's options as parameters of those names, which would hide it. It stays (DM212), unless the option's value
is that very name (batch_size=batch_size): then the parameter's default is the same value."""
import numpy as np
import contextlib
from nvidia.dali import fn, pipeline_def
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


def read_order(files, seed=None):
    # dali-migrate: DM212 shuffled stays in pipeline mode: its body reads seed from the code around it, which the migrated generator's seed= parameter (the pipeline option) would hide
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def shuffled():
        return fn.readers.numpy(files=files, shuffle_after_epoch=True, shuffle_after_epoch_seed=seed)

    pipe = shuffled()
    pipe.build()
    return [int(np.array(pipe.run()[0].at(0))[0]) for _ in files]


def first_batch(root, batch_size):
    @Prefetch(depth=2)
    def batched(*, batch_size=batch_size, num_threads=1, device_id=None, seed=None):
        with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
            if num_threads is not None and num_threads > ndd.get_num_threads():
                ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            if seed is not None:
                ndd.random.set_seed(seed)
            reader = ndd.readers.Numpy(file_root=root)
            while True:
                for (data,) in reader.next_epoch(batch_size=batch_size):
                    yield data, ndd.random.uniform(range=(0.0, 1.0), shape=[batch_size], batch_size=batch_size)

    pipe = batched()
    return next(pipe)
