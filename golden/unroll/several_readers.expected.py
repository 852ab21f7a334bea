"""Several readers in one pipeline: each reader is created once and read as its own endless stream
(its epochs end where its data does, as repeated pipe.run() read it), and the steps zip them."""

import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


@Prefetch(depth=2)
def paired(images_root, arrays_root, *, batch_size=4):
    reader = ndd.readers.File(file_root=images_root, random_shuffle=True, seed=5)
    # arrays read beside the images
    reader_2 = ndd.readers.Numpy(file_root=arrays_root)

    def endless(reader):  # one reader's batches, epoch after epoch, as pipe.run() read them
        while True:
            yield from reader.next_epoch(batch_size=batch_size)

    for (jpegs, labels), (arrays,) in zip(endless(reader), endless(reader_2)):
        yield ndd.decoders.image(jpegs), arrays, labels
