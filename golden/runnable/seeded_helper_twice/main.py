"""A random flip in a plain helper, seeded by its caller: the pipeline draws one seed and flips images and a
second view of them with it, so that both are flipped alike (as a segmentation loader flips images and masks)."""

import random
import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types

RAMP = np.arange(8 * 8, dtype=np.float32).reshape(8, 8, 1)  # its first pixel tells whether it was flipped


def random_flip(images, probability, seed):
    flip = fn.random.coin_flip(probability=1 - probability, seed=seed)
    return fn.flip(images, horizontal=flip)


@pipeline_def(batch_size=8, num_threads=1, device_id=0)
def views(root):
    seed = random.Random(11).randint(1, 1 << 20)
    jpegs, labels = fn.readers.file(file_root=root, seed=seed)
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    images = fn.resize(images, resize_x=8, resize_y=8)
    ramp = fn.reshape(types.Constant(RAMP), layout="HWC")
    flipped = random_flip(images, 0.5, seed)
    marks = random_flip(ramp, probability=0.5, seed=seed)  # flipped where the images were
    return images, flipped, marks, labels


def run(root, steps):
    pipe = views(root)
    pipe.build()
    out = []
    for _ in range(steps):
        images, flipped, marks, labels = (np.array(o.as_cpu().as_array()) for o in pipe.run())
        which = marks[:, 0, 0, 0] != 0  # the samples the ramp's operator flipped
        alike = np.array_equal(flipped, np.where(which[:, None, None, None], images[:, :, ::-1], images))
        out.append((flipped, which, labels.ravel(), alike))
    return out


if __name__ == "__main__":
    steps = run(sys.argv[1], 4)
    for step, (flipped, which, labels, alike) in enumerate(steps):
        # the two calls are two operators with the same seed: the same flips, step after step
        print(f"step {step}: images {flipped.shape} {flipped.dtype} labels {labels.tolist()}, "
              f"flipped where the ramp was {alike}")
    print("the flips change from step to step", any(not np.array_equal(s[1], steps[0][1]) for s in steps[1:]))
    again = run(sys.argv[1], 4)
    print("a new pipeline flips the same again", all(np.array_equal(a[1], b[1]) for a, b in zip(steps, again)))
