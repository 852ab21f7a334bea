"""Pipeline-only features that are marked and reported, never silently changed."""

import nvidia.dali.fn as fn
from nvidia.dali import Pipeline, pipeline_def
from nvidia.dali.plugin.tf import DALIDataset


@pipeline_def(batch_size=4, num_threads=2, device_id=0, enable_conditionals=True)
def conditional_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    if fn.random.coin_flip():
        return fn.flip(images, horizontal=1), labels
    return images, labels


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def plain(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return jpegs, labels


def export(root):
    pipe = plain(root)
    pipe.build()
    serialized = pipe.serialize()
    restored = Pipeline.deserialize(serialized)
    dataset = DALIDataset(pipeline=restored, batch_size=4)
    pipe.schedule_run()
    return pipe.share_outputs(), dataset
