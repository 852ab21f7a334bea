"""Operator objects made once at module level and reused by a pipeline function: a resize, a chain of flips kept in
a list and applied in a loop, casts kept in a dict, a rotation a factory function makes, and two input-less random
objects (a coin flip and a uniform draw: one value per sample)."""

import sys

import numpy as np
from nvidia.dali import fn, ops, pipeline_def, types

resize = ops.Resize(resize_x=20, resize_y=20)
flips = [ops.Flip(horizontal=1), ops.Flip(vertical=1)]
casts = {"float": ops.Cast(dtype=types.FLOAT), "int": ops.Cast(dtype=types.INT32)}
coin = ops.random.CoinFlip(probability=0.5)
scale = ops.random.Uniform(range=(0.5, 1.5))


def rotation(quarter_turns):
    """A factory: an operator object turning images by the given number of quarter turns."""
    return ops.Rotate(angle=90 * quarter_turns, keep_size=True)


half_turn = rotation(2)


@pipeline_def(batch_size=3, num_threads=2, device_id=0, seed=4)
def augmented(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = resize(fn.decoders.image(jpegs, output_type=types.GRAY))
    flipped = images
    for flip in flips:
        flipped = flip(flipped)
    converted = {}
    for key, cast in casts.items():
        converted[key] = cast(images)
    mirrored = fn.flip(images, horizontal=coin())
    return converted["float"], converted["int"], flipped, half_turn(images), mirrored, scale(), labels


def main(root):
    pipe = augmented(root)
    pipe.build()
    for step in range(3):
        outputs = [np.array(out.as_cpu().as_array()) for out in pipe.run()]
        floats, ints, flipped, turned, mirrored, factors, labels = outputs
        print(f"step {step}: {floats.shape} {floats.dtype} sum {float(floats.sum())}, {ints.dtype} sum {int(ints.sum())}")
        # Flip's horizontal defaults to 1: the second object flips both axes, so only the vertical flip is left
        print(f"step {step}: the flips reverse the rows {bool(np.array_equal(flipped, ints[:, ::-1]))}, "
              f"half turn {turned.shape} sum {int(turned.astype(np.int64).sum())}")
        alike = [bool(np.array_equal(m, i) or np.array_equal(m, i[:, ::-1])) for m, i in zip(mirrored, ints)]
        print(f"step {step}: each sample mirrored or not {alike}")
        print(f"step {step}: one factor per sample {factors.shape}, in range "
              f"{bool(((factors >= 0.5) & (factors <= 1.5)).all())}, labels {labels.ravel().tolist()}")


if __name__ == "__main__":
    main(sys.argv[1])
