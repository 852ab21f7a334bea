"""Pipeline-only features that are marked and reported, never silently changed."""

import nvidia.dali.fn as fn
from nvidia.dali import Pipeline, pipeline_def
from nvidia.dali.plugin.tf import DALIDataset


# dali-migrate: DM213 conditional_pipe stays in pipeline mode: per-sample conditionals: a branch of `if fn.random.coin_flip()` returns (pipeline mode merged the returned values per sample)
@pipeline_def(batch_size=4, num_threads=2, device_id=0, enable_conditionals=True)
def conditional_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    if fn.random.coin_flip():
        return fn.flip(images, horizontal=1), labels
    return images, labels


# dali-migrate: DM230 plain stays in pipeline mode with everything that uses it: line 26: pipe.serialize() has no dynamic-mode counterpart: there is no graph to serialize
@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def plain(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return jpegs, labels


def export(root):
    pipe = plain(root)
    pipe.build()
    # dali-migrate: DM214 pipe.serialize() has no dynamic-mode counterpart: there is no graph to serialize
    serialized = pipe.serialize()
    # dali-migrate: DM214 Pipeline.deserialize has no dynamic-mode counterpart: rebuild the ndd code instead
    restored = Pipeline.deserialize(serialized)
    # dali-migrate: DM215 DALIDataset (tf) not migrated: the tool cannot follow restored to a pipeline it migrated in this module; pass the migrated pipeline to a tf.data.Dataset.from_generator
    dataset = DALIDataset(pipeline=restored, batch_size=4)
    pipe.schedule_run()
    return pipe.share_outputs(), dataset
