"""Attributes named like the modules the file imports (self.ops, self.fn, config.types) are attributes, not
references to nvidia.dali.ops, fn or types, nor are a function's parameters of those names: the leftovers pass once
marked `self.ops[...]` and `ops(value)` as pipeline-mode API."""
from nvidia.dali import fn, ops, pipeline_def, types


class Augment:
    def __init__(self, config):
        self.ops = {"flip": ops.Flip(horizontal=1), "resize": ops.Resize(resize_x=16, resize_y=16)}
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


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def augmented(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = AUGMENT(fn.decoders.image(jpegs))
    return fn.cast(images, dtype=types.FLOAT), labels


pipe = augmented("images")
pipe.build()
images, labels = pipe.run()
print(images.at(0).shape, AUGMENT.fn([1, 2]), AUGMENT.types, twice(abs, -3), name_of(len))
