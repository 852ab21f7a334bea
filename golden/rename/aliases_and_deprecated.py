import nvidia.dali.math as dmath
from nvidia.dali import fn as F
from nvidia.dali.fn import readers


def augment(images):
    images = F.image_decoder(images)
    images = F.resize(images, resize_x=64)
    return dmath.clamp(images, 0, 255)


def read(root):
    return readers.file(file_root=root)


class Holder:
    def resize(self, resize=1):  # not DALI: untouched
        return self.resize
