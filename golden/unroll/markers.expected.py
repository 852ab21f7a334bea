"""Pipeline-only features that are marked and reported, never silently changed."""

import nvidia.dali.fn as fn
from nvidia.dali import Pipeline, pipeline_def
from nvidia.dali.plugin.tf import DALIDataset
import nvidia.dali.experimental.dynamic as ndd


# dali-migrate: DM213 conditional_pipe stays in pipeline mode: enable_conditionals=True: `if` on a Batch is always true in dynamic mode; rewrite the branches as per-sample arguments or arithmetic
@pipeline_def(batch_size=4, num_threads=2, device_id=0, enable_conditionals=True)
def conditional_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    if fn.random.coin_flip():
        images = fn.flip(images, horizontal=1)
    return images, labels


# dali-migrate: DM212 two_readers stays in pipeline mode: several readers in one pipeline (their epochs differ; write the loop by hand)
@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def two_readers(a, b):
    x, _ = fn.readers.file(file_root=a)
    y, _ = fn.readers.file(file_root=b)
    return x, y


def plain(root, *, batch_size=4, num_threads=2, device_id=0, seed=None):
    if num_threads is not None and num_threads > ndd.get_num_threads():
        ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield jpegs, labels


def export(root):
    pipe = plain(root)
    # dali-migrate: DM214 pipe.serialize() has no dynamic-mode counterpart: there is no graph to serialize
    serialized = pipe.serialize()
    # dali-migrate: DM214 Pipeline.deserialize has no dynamic-mode counterpart: rebuild the ndd code instead
    restored = Pipeline.deserialize(serialized)
    # dali-migrate: DM215 DALIDataset (tf) has no dynamic-mode adapter: iterate the generator and convert batches via DLPack
    dataset = DALIDataset(pipeline=restored, batch_size=4)
    # dali-migrate: DM214 schedule_run has no dynamic-mode counterpart: each next(pipe) runs one step
    pipe.schedule_run()
    # dali-migrate: DM214 share_outputs has no dynamic-mode counterpart: each next(pipe) runs one step
    return pipe.share_outputs(), dataset
