"""device="mixed" becomes "gpu"; name=, preserve=, bytes_per_sample_hint= go where ndd rejects them."""

import nvidia.dali.experimental.dynamic as ndd


def augment(jpegs):
    images = ndd.decoders.image(jpegs, device="gpu")
    images = ndd.resize(images, size=64)
    images = ndd.rotate(images, angle=10.0, device='gpu')
    images = ndd.flip(
        images,
        horizontal=1,
    )
    return ndd.crop(images, crop=(32, 32), device="cpu")
