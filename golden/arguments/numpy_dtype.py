"""numpy types given as DALI data types become nvidia.dali.types members (the import is kept)."""

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from numpy import uint8


def convert(images):
    images = fn.cast(images, dtype=np.float32)
    small = fn.cast(images, dtype=uint8)
    flags = fn.cast(images, dtype=np.bool_)
    kept = fn.cast(images, dtype=types.INT32)
    dynamic = fn.cast(images, dtype=images.dtype)  # not a numpy type: left alone
    resized = fn.resize(images, size=3, interp_type=types.INTERP_LINEAR)
    return images, small, flags, kept, dynamic, resized, np.float32(1.0)
