"""Legacy ops objects made anywhere, held by an attribute named like the module: an augmentation class (not a
Pipeline) keeps a dict of ops objects in self.ops, a list of Cast objects made by a comprehension and an input-less
ops.random.CoinFlip; a module-level object made by a factory function; a Pipeline base class makes the reader and
the decoder, its subclass composes the augmentation class; a @pipeline_def calls the module-level object too.
`self.ops` is an attribute, not the module imported as `ops` (it was marked DM105 as pipeline-mode API)."""

import numpy as np
from nvidia.dali import Pipeline, ops, fn, types, pipeline_def


def make_resize(size):
    return ops.Resize(resize_x=size, resize_y=size)


RESIZE = make_resize(32)


class Augment:
    def __init__(self, size):
        self.ops = {"flip": ops.Flip(horizontal=1), "resize": ops.Resize(resize_x=size, resize_y=size)}
        self.coin = ops.random.CoinFlip(probability=0.5)
        self.stages = [ops.Cast(dtype=types.FLOAT) for _ in range(2)]

    def __call__(self, images):
        images = self.ops["flip"](images)
        images = self.ops["resize"](images)
        for stage in self.stages:
            images = stage(images)
        return images, self.coin()


class Base(Pipeline):
    def __init__(self, root, batch_size):
        super().__init__(batch_size=batch_size, num_threads=1, device_id=None, seed=4)
        self.reader = ops.readers.File(file_root=root)
        self.decode = ops.decoders.Image(device="cpu")


class Train(Base):
    def __init__(self, root, batch_size):
        super().__init__(root, batch_size)
        self.augment = Augment(24)

    def define_graph(self):
        jpegs, labels = self.reader(name="Reader")
        images = self.decode(jpegs)
        images, flips = self.augment(images)
        small = RESIZE(images)
        return images, small, flips, labels


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def simple(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return RESIZE(fn.decoders.image(jpegs)), labels


def main(root):
    pipe = Train(root, 2)
    pipe.build()
    for step in range(3):
        images, small, flips, labels = pipe.run()
        for i in range(2):
            image = np.array(images.at(i))
            print(f"step {step} sample {i}: {image.shape} {image.dtype} sum {float(image.sum()):.1f}, "
                  f"small {np.array(small.at(i)).shape}, flip {np.array(flips.at(i)).shape}, "
                  f"label {int(np.array(labels.at(i))[0])}")
    other = simple(root)
    other.build()
    resized, labels = other.run()
    print("simple:", [np.array(resized.at(i)).shape for i in range(2)], [int(np.array(labels.at(i))[0]) for i in range(2)])


if __name__ == "__main__":
    import sys
    main(sys.argv[1])
