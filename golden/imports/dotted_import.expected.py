"""`import nvidia.dali.fn` (no alias) binds `nvidia`; it goes once nothing uses nvidia.dali.fn."""

import nvidia.dali.types
import nvidia.dali.experimental.dynamic as ndd


def augment(images):
    return ndd.resize(images, size=3, interp_type=nvidia.dali.types.INTERP_NN)
