"""Random operators inside per-sample branches: each draws for the samples of its branch only."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types


def jitter(images):
    shift = fn.random.uniform(range=[-1, 1], shape=[2])
    return fn.warp_affine(images, matrix=fn.transforms.translation(offset=shift), fill_value=0)


@pipeline_def(batch_size=4, num_threads=2, device_id=0, seed=42, enable_conditionals=True)
def augmented(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, output_type=types.GRAY)
    images = fn.resize(images, resize_x=4, resize_y=4)
    if labels[0] == 1:
        angle = fn.random.uniform(range=[-30, 30])
        images = fn.rotate(images, angle=angle, keep_size=True)
        noise = fn.random.uniform(range=[0, 1], shape=[3])
    else:
        angle = fn.random.uniform(range=[100, 120])
        noise = fn.random.uniform(range=[5, 6], shape=[3])
        images = jitter(images)
    if fn.random.coin_flip():
        images = fn.flip(images, horizontal=1)
    return images, labels, angle, noise


if __name__ == "__main__":
    pipe = augmented(sys.argv[1])
    pipe.build()
    for step in range(3):
        images, labels, angle, noise = pipe.run()
        for i in range(len(images)):
            label = int(labels.at(i)[0])
            a, n = float(np.array(angle.at(i))), np.array(noise.at(i))
            in_range = (-30 <= a <= 30 and (n <= 1).all()) if label == 1 else (100 <= a <= 120 and (n >= 5).all())
            print(f"step {step} sample {i} label {label} shape {np.array(images.at(i)).shape} "
                  f"noise {n.shape} {n.dtype} drawn from its branch's range {bool(in_range)}")
            print(f"step {step} random: angle {a:.3f} noise {n.round(3).tolist()}")
