"""The image-classification benchmark pipeline, dynamic mode under EvalMode.sync_cpu."""

import nvidia.dali.experimental.dynamic as ndd
import nvidia.dali.types as types

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def classification(root, *, batch_size=16, num_threads=2, device_id=0, seed=1234):
    ndd.set_num_threads(num_threads)
    ndd.random.set_seed(seed)
    reader = ndd.readers.File(file_root=root, random_shuffle=True, seed=7, name="Reader")
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            with ndd.EvalMode.sync_cpu:
                images = ndd.decoders.image(jpegs, device="gpu")
                images = ndd.resize(images, size=(128, 128))
                images = ndd.crop_mirror_normalize(images, crop=(112, 112), mean=MEAN, std=STD,
                                                   dtype=types.FLOAT, output_layout="CHW")
            yield images, labels
