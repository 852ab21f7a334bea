"""Checkpointing that is not migrated (a `with pipe:` pipeline, a computed checkpoint=): marked, never
silently dropped."""

import nvidia.dali.fn as fn
from nvidia.dali import Pipeline, pipeline_def


def make_pipe(root):
    pipe = Pipeline(batch_size=4, num_threads=2, device_id=None, enable_checkpointing=True)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=3)
        pipe.set_outputs(jpegs, labels)
    return pipe


@pipeline_def(batch_size=4, num_threads=2, device_id=None, enable_checkpointing=True)
def ckpt_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=3)
    return jpegs, labels


def save(root):
    pipe = make_pipe(root)
    pipe.build()
    pipe.run()
    return pipe.checkpoint()


def resume(root, path):
    pipe = ckpt_pipe(root, checkpoint=open(path, "rb").read())
    pipe.build()
    return pipe.run()
