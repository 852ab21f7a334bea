"""Graph parts shared by the project's pipelines: a source (a reader and what every pipeline does to its
images) and two augmentations that take the pipeline's data."""
from nvidia.dali import fn, types


def labelled_images(root, size, shard_id=0, num_shards=1):
    jpegs, labels = fn.readers.file(file_root=root, shard_id=shard_id, num_shards=num_shards)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    images = fn.resize(images, resize_x=size, resize_y=size)
    return images, labels


def arrays_with_labels(arrays_root, images_root):
    # two readers of different lengths (6 arrays, 10 labels): each wraps at its own epoch end
    arrays = fn.readers.numpy(file_root=arrays_root, name="Arrays")
    _, labels = fn.readers.file(file_root=images_root, name="Labels")
    return arrays * 2.0, labels


def flip_all(images):
    # probability 1: every sample flips, so the output does not depend on the random values
    flip = fn.random.coin_flip(probability=1.0)
    return fn.flip(images, horizontal=flip), flip


def darken(images, amount):
    return fn.cast(fn.cast(images, dtype=types.FLOAT) * amount, dtype=types.UINT8)


def with_crop_shape(images, crop):
    # the crop shape as a per-sample constant beside each image's shape (as detection code builds one)
    crop_shape = fn.constant(idata=crop, device="cpu")
    return fn.cat(fn.shapes(images, dtype=types.INT32), crop_shape)
