"""A fixed affine warp (shift and shear) given as a flat list of 6 floats, as pipeline mode allows."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types

SHEAR = [1.0, 0.2, -2.0, 0.0, 1.0, 1.5]


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def warp_pipe(root):
    jpegs, _ = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    images = fn.resize(images, resize_x=12, resize_y=12)
    warped = fn.warp_affine(images, matrix=SHEAR, size=[12, 12], fill_value=0, inverse_map=False)
    return images, warped


if __name__ == "__main__":
    pipe = warp_pipe(sys.argv[1])
    pipe.build()
    images, warped = pipe.run()
    for i in range(len(warped)):
        src, dst = images.at(i), warped.at(i)
        print(f"sample {i}: {dst.shape} zeros {int((dst == 0).sum())} sum {int(dst.astype(np.int64).sum())} "
              f"(source sum {int(src.astype(np.int64).sum())})")
