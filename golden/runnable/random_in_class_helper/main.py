"""Augmentations written as helpers, as segmentation trainers write them: a module-level `maybe` that mixes a
coin flip with two values, called with an input-less random op nested in its arguments, from a helper method
of a Pipeline subclass and from a graph helper function that takes the batch. Only what does not depend on the
random values is printed: ranges, and whether every sample got a value of its own."""
import argparse

import numpy as np
from nvidia.dali import fn, ops, types
from nvidia.dali.pipeline import Pipeline


def maybe(probability, augmented, original):
    flip = fn.cast(fn.random.coin_flip(probability=probability), dtype=types.BOOL)
    return flip * augmented + (flip ^ True) * original


def shifted(arrays):
    return arrays + maybe(1.0, fn.random.uniform(range=(-1.0, 1.0)), 0.0)


class Augmented(Pipeline):
    def __init__(self, batch_size, root):
        super().__init__(batch_size, 2, None, seed=17)
        self.input = ops.readers.Numpy(file_root=root)

    def brightness(self, arrays):
        scale = maybe(1.0, fn.random.uniform(range=(0.7, 1.3)), 1.0)
        return arrays * scale

    def define_graph(self):
        arrays = self.input(name="Reader")
        return arrays, self.brightness(arrays), shifted(arrays)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("arrays")
    parser.add_argument("--steps", type=int, default=4)
    args = parser.parse_args()
    pipe = Augmented(4, args.arrays)
    pipe.build()
    print("samples", pipe.epoch_size("Reader"))
    for step in range(args.steps):
        arrays, brighter, moved = (out.as_array() for out in pipe.run())
        ratios = (brighter.sum(axis=(1, 2)) + 1e-3) / (arrays.sum(axis=(1, 2)) + 1e-3)
        shifts = (moved - arrays)[:, 0, 0]
        print(step, arrays.sum(axis=(1, 2)).tolist(), brighter.shape, moved.shape,
              "scales in range", bool(((ratios > 0.699) & (ratios < 1.301)).all()),
              "one per sample", len(set(np.round(ratios, 5))) == len(ratios),
              "shifts in range", bool((np.abs(shifts) <= 1.0).all()),
              "one per sample", len(set(np.round(shifts, 5))) == len(shifts),
              "same shift over a sample", bool(np.allclose(moved - arrays, shifts[:, None, None], atol=1e-4)))


if __name__ == "__main__":
    main()
