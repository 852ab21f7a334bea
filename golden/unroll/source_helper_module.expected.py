"""A module of graph parts that other modules' pipelines are built from (no pipeline here)."""
import numpy as np
import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd


def shuffled_arrays(root, pattern, *, batch_size, seed=None):
    header = f"{root}/{pattern}"  # plain Python before the readers: it ran once
    reader = ndd.readers.Numpy(file_root=root, file_filter=pattern, random_shuffle=True, name=header, seed=seed)
    reader_2 = ndd.readers.Numpy(file_root=root, file_filter="mask_" + pattern)

    def endless(reader):  # one reader's batches, epoch after epoch, as pipe.run() read them
        while True:
            yield from reader.next_epoch(batch_size=batch_size)

    for (arrays,), (masks,) in zip(endless(reader), endless(reader_2)):
        yield ndd.cast(arrays, dtype=types.FLOAT), masks


def records(paths, index_paths, *, batch_size, seed=None):
    reader = ndd.readers.TFRecord(path=paths, index_path=index_paths, features={})
    while True:
        for inputs in reader.next_epoch(batch_size=batch_size):
            yield ndd.decoders.image(inputs["image/encoded"]), inputs["label"]


def jitter(images, sizes):
    angle = ndd.random.uniform(range=(-10.0, 10.0), batch_size=images.batch_size)
    frame = ndd.Batch.broadcast(ndd.tensor(np.ravel(np.asarray(sizes, dtype=np.float32))), images.batch_size)
    return ndd.rotate(images, angle=angle), frame


def read_and_use(root):
    # dali-migrate: DM104 ndd.readers.File is a stateful reader: create it once and iterate reader.next_epoch(batch_size=...); calling it does not return batches
    labels = ndd.readers.File(file_root=root)  # called below: not a source helper of other modules
    return labels


def local_pipeline_part(root):
    return read_and_use(root)


def returned_arrays(root, *, batch_size, seed=None):
    reader = ndd.readers.Numpy(file_root=root, file_filter="*.npy")  # the reader's one output, returned as it is
    while True:
        for (outputs,) in reader.next_epoch(batch_size=batch_size):
            yield outputs


def returned_files(root, shard, *, batch_size, seed=None):
    reader = ndd.readers.File(file_root=root, shard_id=shard, num_shards=2)
    while True:
        for outputs in reader.next_epoch(batch_size=batch_size):
            yield outputs
