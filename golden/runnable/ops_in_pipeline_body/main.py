"""Operator objects made in a pipeline function and called there: a crop at a random position for images and,
with the same seed, for a second view of them (as a segmentation loader crops images and masks alike)."""

import random
import sys

import numpy as np
from nvidia.dali import fn, ops, pipeline_def, types

RAMP = np.arange(32 * 32, dtype=np.float32).reshape(32, 32, 1)


@pipeline_def(batch_size=3, num_threads=1, device_id=0)
def crops(root, size):
    seed = random.Random(7).randint(1, 1000)  # one seed for both views
    jpegs, labels = fn.readers.file(file_root=root, seed=seed)
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    images = fn.resize(images, resize_x=32, resize_y=32)

    crop = ops.Crop(crop=(size, size), output_dtype=types.FLOAT)
    uniform = ops.random.Uniform(range=(0.0, 1.0), seed=seed)
    flip = ops.Flip(horizontal=1)
    ramp = fn.reshape(types.Constant(RAMP), layout="HWC")  # each pixel's value is its place

    # each call is an operator of its own: the two views are cropped at the same (random) places
    first = crop(images, crop_pos_x=uniform(), crop_pos_y=uniform(), seed=seed)
    second = crop(images, crop_pos_x=uniform(), crop_pos_y=uniform(), seed=seed)
    where = crop(ramp, crop_pos_x=uniform(), crop_pos_y=uniform())  # the same places again: where they are
    return first, second, flip(second), where, labels


def batches(pipe, steps):
    out = []
    for _ in range(steps):
        out.append([np.array(o.as_cpu().as_array()) for o in pipe.run()])
    return out


if __name__ == "__main__":
    pipe = crops(sys.argv[1], 16)
    pipe.build()
    steps = batches(pipe, 3)
    for step, (first, second, flipped, where, labels) in enumerate(steps):
        print(f"step {step}: crops {first.shape} {first.dtype} labels {labels.ravel().tolist()}")
        print(f"step {step}: views cropped alike {np.array_equal(first, second)}, "
              f"flipped is the mirror {np.array_equal(flipped, second[:, :, ::-1])}")
        print(f"step {step}: crop {where.shape}, on the image's grid {bool((where % 1 == 0).all())}")
        if step:  # the operators' random streams go on from step to step
            print(f"step {step}: other places than step {step - 1} {not np.array_equal(where, steps[step - 1][3])}")
    again = crops(sys.argv[1], 16)
    again.build()
    print("a new pipeline crops at the same places again",
          all(np.array_equal(a[3], b[3]) for a, b in zip(steps, batches(again, 3))))
