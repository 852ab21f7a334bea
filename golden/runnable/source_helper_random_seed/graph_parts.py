"""Graph parts: a source that reads and resizes its images and flips them at random (an input-less random op)."""
import nvidia.dali.fn as fn


def flipped_images(root, size):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.resize(fn.decoders.image(jpegs), resize_x=size, resize_y=size)
    flip = fn.random.coin_flip()
    return fn.flip(images, horizontal=flip), flip, labels
