"""`import nvidia.dali.fn` (no alias) binds `nvidia`; it goes once nothing uses nvidia.dali.fn."""

import nvidia.dali.fn
import nvidia.dali.types


def augment(images):
    return nvidia.dali.fn.resize(images, size=3, interp_type=nvidia.dali.types.INTERP_NN)
