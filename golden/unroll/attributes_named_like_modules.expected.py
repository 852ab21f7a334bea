"""Attributes named like the modules the file imports (self.ops, self.fn, config.types) are attributes, not
references to nvidia.dali.ops, fn or types, nor are a function's parameters of those names: the leftovers pass once
marked `self.ops[...]` and `ops(value)` as pipeline-mode API."""
import numpy as np
from nvidia.dali import types
import nvidia.dali.experimental.dynamic as ndd


class Augment:
    def __init__(self, config):
        self.ops = {"flip": lambda *inputs, **kwargs: ndd.flip(*inputs, horizontal=1, **kwargs), "resize": lambda *inputs, **kwargs: ndd.resize(*inputs, resize_x=16, resize_y=16, **kwargs)}
        self.fn = config.fn
        self.types = config.types

    def __call__(self, images):
        images = self.ops["flip"](images)
        return self.ops["resize"](images)


def twice(ops, value):
    return ops(ops(value))


def name_of(fn):
    return fn.__name__


AUGMENT = Augment(type("Config", (), {"fn": len, "types": "float"}))


def augmented(root, *, batch_size=2):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = AUGMENT(ndd.decoders.image(jpegs))
            yield ndd.cast(images, dtype=types.FLOAT), labels


pipe = augmented("images")
images, labels = next(pipe)
print(np.array(images.select(0)).shape, AUGMENT.fn([1, 2]), AUGMENT.types, twice(abs, -3), name_of(len))
