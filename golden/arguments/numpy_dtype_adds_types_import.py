"""`types` is the standard library module here, so DALI's types come in as dali_types."""

import types

import numpy
import nvidia.dali.fn as fn


def convert(images):
    namespace = types.SimpleNamespace(a=1)
    return fn.cast(images, dtype=numpy.float16), namespace
