"""Two pipelines. The first calls an operator object that is also handed to another package's registry, which may
call it in pipelines of its own: it must stay an ops object, so that pipeline, and the augmentation objects it
calls (augment.py), stay in pipeline mode with it. The second shares nothing with them and migrates."""

import sys

import numpy as np
from nvidia.dali import fn, ops, pipeline_def, types

from augment import Shrink, upside_down
from registry import register

mirror = register("mirror", ops.Flip(horizontal=1))
shrink = Shrink(16)
small = ops.Resize(resize_x=12, resize_y=12)
blur = ops.GaussianBlur(window_size=3)


@pipeline_def(batch_size=2, num_threads=2, device_id=0)
def registered(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = shrink(fn.decoders.image(jpegs, output_type=types.GRAY))
    return mirror(images), upside_down(images), images, labels


@pipeline_def(batch_size=2, num_threads=2, device_id=0)
def blurred(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return blur(small(fn.decoders.image(jpegs, output_type=types.GRAY))), labels


def main(root):
    first = registered(root)
    second = blurred(root)
    first.build()
    second.build()
    for step in range(2):
        mirrored, flipped, images, labels = (np.array(out.as_cpu().as_array()) for out in first.run())
        smooth, other_labels = (np.array(out.as_cpu().as_array()) for out in second.run())
        print(f"step {step}: mirrored {mirrored.shape} is the mirror {bool(np.array_equal(mirrored, images[:, :, ::-1]))}"
              f" upside down {bool(np.array_equal(flipped, images[:, ::-1]))} labels {labels.ravel().tolist()}")
        print(f"step {step}: blurred {smooth.shape} sum {int(smooth.astype(np.int64).sum())} "
              f"labels {other_labels.ravel().tolist()}")


if __name__ == "__main__":
    main(sys.argv[1])
