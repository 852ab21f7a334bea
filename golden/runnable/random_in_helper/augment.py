from nvidia.dali import fn, types


def random_rotate(images):
    """Rotate each image by a random angle in [-30, 30] degrees; also return the angles."""
    angle = fn.random.uniform(range=(-30.0, 30.0))
    return fn.rotate(images, angle=angle, keep_size=True, fill_value=0), angle


def brightness(images, amount):
    return fn.cast(fn.cast(images, dtype=types.FLOAT) * amount, dtype=types.UINT8)
