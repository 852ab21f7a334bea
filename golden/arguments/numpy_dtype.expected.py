"""numpy types given as DALI data types become nvidia.dali.types members (the import is kept)."""

import numpy as np
import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from numpy import uint8


def convert(images):
    images = ndd.cast(images, dtype=types.FLOAT)
    small = ndd.cast(images, dtype=types.UINT8)
    flags = ndd.cast(images, dtype=types.BOOL)
    kept = ndd.cast(images, dtype=types.INT32)
    dynamic = ndd.cast(images, dtype=images.dtype)  # not a numpy type: left alone
    resized = ndd.resize(images, size=3, interp_type=types.INTERP_LINEAR)
    return images, small, flags, kept, dynamic, resized, np.float32(1.0)
