"""device="mixed" becomes "gpu"; name=, preserve=, bytes_per_sample_hint= go where ndd rejects them."""

import nvidia.dali.fn as fn


def augment(jpegs):
    images = fn.decoders.image(jpegs, device="mixed", name="decode")
    images = fn.resize(images, size=64, preserve=True, bytes_per_sample_hint=1 << 20)
    images = fn.rotate(images, angle=10.0, device='mixed')
    images = fn.flip(
        images,
        horizontal=1,
        name="flip",
    )
    return fn.crop(images, name="crop", crop=(32, 32), device="cpu")
