"""Image classification with a random mirror, dynamic mode (hand-migrated)."""

import nvidia.dali.experimental.dynamic as ndd
import nvidia.dali.types as types


def augment(root, size=(24, 24), *, batch_size=4, num_threads=2, device_id=None, seed=7):
    ndd.set_num_threads(num_threads)
    if seed is not None:
        ndd.random.set_seed(seed)
    reader = ndd.readers.File(file_root=root, random_shuffle=True, name="Reader", seed=seed)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs, device="cpu")
            images = ndd.resize(images, size=size)
            mirror = ndd.random.coin_flip(probability=0.5, batch_size=batch_size)
            images = ndd.crop_mirror_normalize(images, crop=(16, 16), mirror=mirror, dtype=types.FLOAT,
                                               mean=[128.0, 128.0, 128.0], std=[64.0, 64.0, 64.0])
            yield images, labels


if __name__ == "__main__":
    raise SystemExit("the harness must not run this block")
