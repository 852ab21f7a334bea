"""A pipeline body that reads seed (or batch_size...) from the function around it: the migrated generator takes the
pipeline's options as parameters of those names, which would hide it. It stays (DM212), unless the option's value
is that very name (batch_size=batch_size): then the parameter's default is the same value."""
import numpy as np
from nvidia.dali import fn, pipeline_def


def read_order(files, seed=None):
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def shuffled():
        return fn.readers.numpy(files=files, shuffle_after_epoch=True, shuffle_after_epoch_seed=seed)

    pipe = shuffled()
    pipe.build()
    return [int(np.array(pipe.run()[0].at(0))[0]) for _ in files]


def first_batch(root, batch_size):
    @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None)
    def batched():
        data = fn.readers.numpy(file_root=root)
        return data, fn.random.uniform(range=(0.0, 1.0), shape=[batch_size])

    pipe = batched()
    pipe.build()
    return pipe.run()
