"""Augmentations of this program, made of operator objects."""

from nvidia.dali import ops


class Shrink:
    def __init__(self, size):
        self.resize = ops.Resize(resize_x=size, resize_y=size)

    def __call__(self, images):
        return self.resize(images)
