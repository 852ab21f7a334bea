"""A small image-classification loader in DALI pipeline mode (the bundled example)."""

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=3)
def classifier_pipe(root, size):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed")
    images = fn.resize(images, size=size, interp_type=types.INTERP_LINEAR)
    flip = fn.random.coin_flip()
    images = fn.flip(images, horizontal=flip)
    return images, labels


def main(root):
    pipe = classifier_pipe(root, 64)
    pipe.build()
    for _ in range(3):
        images, labels = pipe.run()
        print(images.as_cpu().at(0).shape, labels.at(0))
