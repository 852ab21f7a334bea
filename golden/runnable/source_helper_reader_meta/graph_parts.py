"""Graph parts: the source of the pipelines (a named, padded file reader), decoded and resized."""
import nvidia.dali.fn as fn


def labelled_images(root, size):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader", pad_last_batch=True)
    images = fn.decoders.image(jpegs)
    return fn.resize(images, resize_x=size, resize_y=size), labels
