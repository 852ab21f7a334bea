"""The factory, dynamic mode: it returns the generator."""

import nvidia.dali.experimental.dynamic as ndd
import nvidia.dali.types as types


def make_pipe(root, batch_size=4):
    return _make_pipe(root, batch_size, num_threads=2, device_id=0, seed=9)


def _make_pipe(root, batch_size, *, num_threads, device_id, seed):
    ndd.set_num_threads(num_threads)
    ndd.random.set_seed(seed)
    reader = ndd.readers.File(file_root=root, seed=4, random_shuffle=True)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs, device="gpu")
            images = ndd.resize(images, size=(20, 20), interp_type=types.INTERP_LINEAR)
            yield images, labels.gpu()
