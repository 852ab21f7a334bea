"""Augmentations of this program, made of operator objects."""

from nvidia.dali import ops

upside_down = ops.Flip(horizontal=0, vertical=1)


class Shrink:
    def __init__(self, size):
        self.resize = ops.Resize(resize_x=size, resize_y=size)

    def __call__(self, images):
        return self.resize(images)
