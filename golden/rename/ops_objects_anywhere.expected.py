"""Legacy ops objects made outside the pipeline's definition and called in it: in a plain augmentation class's
__init__, at module level, in a list and a dict, returned by a factory. Each becomes a callable of its ndd op that
keeps its constructor's arguments; an input-less random one gets batch_size= where it is called (the steps' batch
size, or the batch size of the helper's data)."""

from nvidia.dali import types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)

resize = lambda *inputs, **kwargs: ndd.resize(*inputs, resize_x=64, resize_y=64, **kwargs)
shifts = [lambda *inputs, **kwargs: ndd.flip(*inputs, horizontal=1, **kwargs), lambda *inputs, **kwargs: ndd.flip(*inputs, vertical=1, **kwargs)]
casts = {"float": lambda *inputs, **kwargs: ndd.cast(*inputs, dtype=types.FLOAT, **kwargs), "half": lambda *inputs, **kwargs: ndd.cast(*inputs, dtype=types.FLOAT16, **kwargs)}
jitter = lambda *inputs, **kwargs: ndd.random.uniform(*inputs, range=(0.9, 1.1), **kwargs)


def rotation(angle):
    return lambda *inputs, **kwargs: ndd.rotate(*inputs, angle=angle, keep_size=True, **kwargs)


class Augment:
    def __init__(self, probability):
        self.coin = lambda *inputs, **kwargs: ndd.random.coin_flip(*inputs, probability=probability, **kwargs)
        self.flip = lambda *inputs, **kwargs: ndd.flip(*inputs, **kwargs)
        self.turn = rotation(90)

    def __call__(self, images):
        return self.turn(self.flip(images, horizontal=self.coin(batch_size=images.batch_size)))


augment = Augment(0.5)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


@Prefetch(depth=2)
def train(root, *, batch_size=8, seed=3):
    ndd.random.set_seed(seed)
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = resize(ndd.decoders.image(jpegs))
            for shift in shifts:
                images = shift(images)
            scale = jitter(batch_size=batch_size)
            yield casts["float"](augment(images)) * scale, labels
