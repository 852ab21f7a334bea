"""A module of graph parts that other modules' pipelines are built from (no pipeline here)."""
import nvidia.dali.fn as fn
import nvidia.dali.types as types


def shuffled_arrays(root, pattern):
    header = f"{root}/{pattern}"  # plain Python before the readers: it ran once
    arrays = fn.readers.numpy(file_root=root, file_filter=pattern, random_shuffle=True, name=header)
    masks = fn.readers.numpy(file_root=root, file_filter="mask_" + pattern, bytes_per_sample_hint=1024)

    return fn.cast(arrays, dtype=types.FLOAT), masks


def records(paths, index_paths):
    inputs = fn.readers.tfrecord(path=paths, index_path=index_paths, features={})
    return fn.decoders.image(inputs["image/encoded"]), inputs["label"]


def jitter(images, sizes):
    angle = fn.random.uniform(range=(-10.0, 10.0))
    frame = fn.constant(fdata=sizes)
    return fn.rotate(images, angle=angle), frame


def read_and_use(root):
    labels = fn.readers.file(file_root=root)  # called below: not a source helper of other modules
    return labels


def local_pipeline_part(root):
    return read_and_use(root)


def returned_arrays(root):
    return fn.readers.numpy(file_root=root, file_filter="*.npy")  # the reader's one output, returned as it is


def returned_files(root, shard):
    return fn.readers.file(file_root=root, shard_id=shard, num_shards=2)
