"""Per-sample conditionals the migration cannot write faithfully stay in pipeline mode, each marked with why."""

from nvidia.dali import fn, pipeline_def


# dali-migrate: DM213 returns_early stays in pipeline mode: per-sample conditionals: a branch of `if labels[0] == 1` returns (pipeline mode merged the returned values per sample)
@pipeline_def(batch_size=4, num_threads=2, device_id=0, enable_conditionals=True)
def returns_early(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    if labels[0] == 1:
        return fn.flip(images, horizontal=1), labels
    return images, labels


# dali-migrate: DM213 python_in_branch stays in pipeline mode: per-sample conditionals: a branch of `if labels[0] == 1` binds size, a plain Python value read after it (pipeline mode made it a constant batch, merged per sample)
@pipeline_def(batch_size=4, num_threads=2, device_id=0, enable_conditionals=True)
def python_in_branch(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    if labels[0] == 1:
        size = 8
    else:
        size = 16
    return fn.resize(images, size=[size, size]), labels


# dali-migrate: DM230 mirror_some builds part of helper_branches, which stays in pipeline mode with everything that uses it: see its definition
def mirror_some(images, labels):
    if labels[0] == 1:
        images = fn.flip(images, horizontal=1)
    return images


# dali-migrate: DM213 helper_branches stays in pipeline mode: per-sample conditionals: mirror_some(), which the pipeline calls, branches on pipeline data itself (`if labels[0] == 1`): pipeline mode ran it per sample too
@pipeline_def(batch_size=4, num_threads=2, device_id=0, enable_conditionals=True)
def helper_branches(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return mirror_some(fn.decoders.image(jpegs), labels), labels


# dali-migrate: DM213 in_a_loop stays in pipeline mode: per-sample conditionals: `if labels[0] == step` on pipeline data inside a `for` of the pipeline body
@pipeline_def(batch_size=4, num_threads=2, device_id=0, enable_conditionals=True)
def in_a_loop(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    for step in range(2):
        if labels[0] == step:
            images = fn.flip(images, horizontal=1)
    return images, labels


# dali-migrate: DM213 reader_in_branch stays in pipeline mode: per-sample conditionals: fn.readers.file in a per-sample branch: the migration creates readers and sources once and steps them whole, not per branch
@pipeline_def(batch_size=4, num_threads=2, device_id=0, enable_conditionals=True)
def reader_in_branch(root):
    jpegs, labels = fn.readers.file(file_root=root)
    if labels[0] == 1:
        jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=3)
    return jpegs, labels


# dali-migrate: DM230 is_gpu builds part of unknown_test, which stays in pipeline mode with everything that uses it: see its definition
def is_gpu(images):
    return images.device == "gpu"


# dali-migrate: DM213 unknown_test stays in pipeline mode: per-sample conditionals: whether `if is_gpu(images)` tests pipeline data (then pipeline mode split the batch) or a plain Python value is not known before it runs
@pipeline_def(batch_size=4, num_threads=2, device_id=0, enable_conditionals=True)
def unknown_test(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    if is_gpu(images):
        images = images.cpu()
    return images, labels
