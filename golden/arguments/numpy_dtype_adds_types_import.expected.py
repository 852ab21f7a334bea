"""`types` is the standard library module here, so DALI's types come in as dali_types."""

import types

import numpy
import nvidia.dali.experimental.dynamic as ndd
import nvidia.dali.types as dali_types


def convert(images):
    namespace = types.SimpleNamespace(a=1)
    return ndd.cast(images, dtype=dali_types.FLOAT16), namespace
