"""Augmentations kept in their own module, as training code keeps its transforms: each class builds its operator
objects once, in __init__, and applies them when called on a batch of images."""

from nvidia.dali import ops, types


# a module-level object the pipeline imports and calls itself
upside_down = ops.Flip(horizontal=0, vertical=1)


def make_rotation(angle):
    """A factory the augmentations share: an operator object, made once per call."""
    return ops.Rotate(angle=angle, keep_size=True, fill_value=0)


class RandomAugmentation:
    """The base of the random augmentations: it sets the coin flip they draw from."""

    def __init__(self, probability):
        self.coin = ops.random.CoinFlip(probability=probability)


class RandomMirror(RandomAugmentation):
    """Mirrors each image with probability p: a coin flip drawn per sample (no input: one value per sample)."""

    def __init__(self, probability=0.5):
        super().__init__(probability)
        self.flip = ops.Flip()

    def __call__(self, images):
        return self.flip(images, horizontal=self.coin())


class Standardize:
    """Resize, a quarter turn, and a float cast: deterministic."""

    def __init__(self, size):
        self.resize = ops.Resize(resize_x=size, resize_y=size)
        self.turn = make_rotation(90)
        self.cast = ops.Cast(dtype=types.FLOAT)

    def __call__(self, images):
        return self.cast(self.turn(self.resize(images)))
