"""Per-sample conditionals the migration cannot write faithfully stay in pipeline mode, each marked with why."""

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=4, num_threads=2, device_id=0, enable_conditionals=True)
def returns_early(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    if labels[0] == 1:
        return fn.flip(images, horizontal=1), labels
    return images, labels


@pipeline_def(batch_size=4, num_threads=2, device_id=0, enable_conditionals=True)
def python_in_branch(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    if labels[0] == 1:
        size = 8
    else:
        size = 16
    return fn.resize(images, size=[size, size]), labels


def mirror_some(images, labels):
    if labels[0] == 1:
        images = fn.flip(images, horizontal=1)
    return images


@pipeline_def(batch_size=4, num_threads=2, device_id=0, enable_conditionals=True)
def helper_branches(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return mirror_some(fn.decoders.image(jpegs), labels), labels


@pipeline_def(batch_size=4, num_threads=2, device_id=0, enable_conditionals=True)
def in_a_loop(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    for step in range(2):
        if labels[0] == step:
            images = fn.flip(images, horizontal=1)
    return images, labels


@pipeline_def(batch_size=4, num_threads=2, device_id=0, enable_conditionals=True)
def reader_in_branch(root):
    jpegs, labels = fn.readers.file(file_root=root)
    if labels[0] == 1:
        jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=3)
    return jpegs, labels


def is_gpu(images):
    return images.device == "gpu"


@pipeline_def(batch_size=4, num_threads=2, device_id=0, enable_conditionals=True)
def unknown_test(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    if is_gpu(images):
        images = images.cpu()
    return images, labels
