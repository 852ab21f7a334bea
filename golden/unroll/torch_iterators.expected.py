"""PyTorch consumers: DALIClassificationIterator / DALIGenericIterator with reader_name, size,
last-batch policies, auto_reset and reset(), and epoch_size."""

import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import EpochIterator, Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


def val_pipe(root, pad=False, size=24, *, batch_size):
    reader = ndd.readers.File(file_root=root, pad_last_batch=pad, name="Reader", max_batch_size=batch_size)

    @Prefetch(depth=2)
    def steps():
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                images = ndd.decoders.image(jpegs, device="gpu")
                images = ndd.resize(images, resize_x=size, resize_y=size)
                images = ndd.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW")
                yield images, labels

    return ReaderStream(steps(), {"Reader": reader}, batch_size)


def partial_epochs(root, epochs, pad):
    pipe = val_pipe(root, pad=pad, batch_size=4)
    loader = EpochIterator(pipe, ["data", "label"], reader_name="Reader", last_batch_policy="PARTIAL", auto_reset=True)
    seen = []
    for _ in range(epochs):
        for data in loader:
            seen.append((data[0]["data"].clone(), data[0]["label"].squeeze(-1).long()))
    return seen


def fill_epochs(root, epochs, pad):
    pipe = val_pipe(root, pad, batch_size=4)
    loader = EpochIterator([pipe], ["images", "labels"], reader_name="Reader")
    seen = []
    for _ in range(epochs):
        for batch in loader:
            seen.append((batch[0]["images"].clone(), batch[0]["labels"].clone()))
        loader.reset()
    return seen


def drop_epochs(root, epochs, pad):
    pipe = val_pipe(root, pad, batch_size=4)
    size = pipe.epoch_size("Reader")
    loader = EpochIterator(pipe, ["images", "labels"], size=size, last_batch_policy="DROP", auto_reset=True)
    seen = []
    for _ in range(epochs):
        for batch in loader:
            seen.append((batch[0]["images"].clone(), batch[0]["labels"].clone()))
    return seen, len(loader)
