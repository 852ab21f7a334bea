"""Constants inside a pipeline: scalar constants in arithmetic and arguments, constant nodes held in
names, fn.constant filling a shape; an array in a variable (whose numpy type pipeline mode narrowed) is
typed at run time as pipeline mode typed it."""
import numpy as np
from nvidia.dali import types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)

OFFSETS = np.arange(5)


@Prefetch(depth=2)
def constants(root, *, batch_size=2):
    scale = ndd.Batch.broadcast(ndd.tensor([0.5, 1.0, 1.5], dtype=ndd.float32), batch_size)
    reader = ndd.readers.File(file_root=root)
    while True:
        for images, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(images)
            bright = images * ndd.tensor(2, dtype=ndd.uint8)
            rotated = ndd.rotate(bright, angle=30.0)
            border = ndd.Batch.broadcast(ndd.tensor([[0, 0, 0]], dtype=types.UINT8), batch_size)
            yield rotated * scale, border, labels + 1


@Prefetch(depth=2)
def narrowed(root, *, batch_size=2):
    reader = ndd.readers.File(file_root=root)
    while True:
        for images, labels in reader.next_epoch(batch_size=batch_size):
            yield (labels + ndd.Batch.broadcast(ndd.tensor(np.asarray(OFFSETS, dtype=None if isinstance(OFFSETS, np.generic) or np.ndim(OFFSETS) == 0 and isinstance(OFFSETS, np.ndarray) else {"float64": np.float32, "int64": np.int32, "uint64": np.uint32}.get(np.asarray(OFFSETS).dtype.name))), batch_size),)
