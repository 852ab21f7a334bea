"""Branches that read a reader's outputs: each class decoded differently from the encoded file."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=4, num_threads=2, device_id=0, enable_conditionals=True)
def decoded(list_file, root):
    jpegs, labels = fn.readers.file(file_list=list_file, file_root=root, random_shuffle=True, seed=7)
    size = fn.cast(fn.shapes(jpegs)[0] * 0, dtype=types.INT32)
    if labels[0] == 0:
        print("tracing the branch of class 0")
        images = fn.decoders.image(jpegs, output_type=types.GRAY)
        images = fn.resize(images, resize_x=3, resize_y=2)
    elif labels[0] == 1:
        images = fn.decoders.image_crop(jpegs, output_type=types.GRAY, crop=[2, 3])
        size = size + 1
    else:
        print("tracing the branch of class 2")
        images = fn.decoders.image(jpegs, output_type=types.GRAY)
        images = fn.crop(images, crop=[2, 3], crop_pos_x=1.0, crop_pos_y=1.0)
        size = size + 2
    return images, labels, size


if __name__ == "__main__":
    pipe = decoded(sys.argv[1], sys.argv[2])
    pipe.build()
    for step in range(4):
        images, labels, size = pipe.run()
        for i in range(len(images)):
            print(f"step {step} sample {i} label {int(labels.at(i)[0])} branch {int(np.array(size.at(i)))} "
                  f"pixels {np.array(images.at(i))[..., 0].tolist()}")
