"""A Pipeline subclass that composes augmentation objects of another module (augment.py) and one of its own."""

import sys

import numpy as np
from nvidia.dali import ops, types
from nvidia.dali.pipeline import Pipeline

from augment import RandomMirror, Standardize, upside_down


class Brightness:
    """Scales the images' brightness by a fixed factor (an operator object of this module's own class)."""

    def __init__(self, factor):
        self.adjust = ops.BrightnessContrast(brightness=factor)

    def __call__(self, images):
        return self.adjust(images)


class TrainPipe(Pipeline):
    def __init__(self, root, batch_size, size):
        super().__init__(batch_size=batch_size, num_threads=2, device_id=0, seed=11)
        self.reader = ops.readers.File(file_root=root, name="Reader")
        self.decode = ops.decoders.Image(device="mixed", output_type=types.GRAY)
        self.standardize = Standardize(size)
        self.mirror = RandomMirror(0.5)
        self.brightness = Brightness(0.5)

    def define_graph(self):
        jpegs, labels = self.reader()
        images = self.standardize(self.decode(jpegs))
        return images, self.mirror(images), self.brightness(images), upside_down(images), labels


def main(root):
    pipe = TrainPipe(root, batch_size=4, size=24)
    pipe.build()
    print("epoch size", pipe.epoch_size("Reader"))
    for step in range(3):
        images, mirrored, bright, flipped, labels = (np.array(out.as_cpu().as_array()) for out in pipe.run())
        print(f"step {step}: images {images.shape} {images.dtype} sum {float(images.sum()):.1f}")
        # each sample is either the image or its mirror (which one is random)
        alike = [bool(np.array_equal(m, i) or np.array_equal(m, i[:, ::-1])) for m, i in zip(mirrored, images)]
        print(f"step {step}: mirrored {mirrored.shape} each the image or its mirror {alike}")
        print(f"step {step}: upside down {bool(np.array_equal(flipped, images[:, ::-1]))}")
        print(f"step {step}: brightness x0.5 {bool(np.allclose(bright, images * 0.5, atol=1))} "
              f"labels {labels.ravel().tolist()}")


if __name__ == "__main__":
    main(sys.argv[1])
