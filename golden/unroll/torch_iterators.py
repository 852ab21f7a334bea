"""PyTorch consumers: DALIClassificationIterator / DALIGenericIterator with reader_name, size,
last-batch policies, auto_reset and reset(), and epoch_size."""

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def
from nvidia.dali.plugin.base_iterator import LastBatchPolicy
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, DALIGenericIterator


@pipeline_def(num_threads=2, device_id=0)
def val_pipe(root, pad=False, size=24):
    jpegs, labels = fn.readers.file(file_root=root, pad_last_batch=pad, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed")
    images = fn.resize(images, resize_x=size, resize_y=size)
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW")
    return images, labels


def partial_epochs(root, epochs, pad):
    pipe = val_pipe(root, pad=pad, batch_size=4)
    pipe.build()
    loader = DALIClassificationIterator(pipe, reader_name="Reader",
                                        last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True)
    seen = []
    for _ in range(epochs):
        for data in loader:
            seen.append((data[0]["data"].clone(), data[0]["label"].squeeze(-1).long()))
    return seen


def fill_epochs(root, epochs, pad):
    pipe = val_pipe(root, pad, batch_size=4)
    pipe.build()
    loader = DALIGenericIterator([pipe], ["images", "labels"], reader_name="Reader")
    seen = []
    for _ in range(epochs):
        for batch in loader:
            seen.append((batch[0]["images"].clone(), batch[0]["labels"].clone()))
        loader.reset()
    return seen


def drop_epochs(root, epochs, pad):
    pipe = val_pipe(root, pad, batch_size=4)
    pipe.build()
    size = pipe.epoch_size("Reader")
    loader = DALIGenericIterator(pipe, ["images", "labels"], size=size,
                                 last_batch_policy=LastBatchPolicy.DROP, auto_reset=True)
    seen = []
    for _ in range(epochs):
        for batch in loader:
            seen.append((batch[0]["images"].clone(), batch[0]["labels"].clone()))
    return seen, len(loader)
