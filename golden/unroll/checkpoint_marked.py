"""Checkpointing is not migrated yet: it is marked, never silently dropped."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=4, num_threads=2, device_id=None, enable_checkpointing=True)
def ckpt_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=3)
    return jpegs, labels


def resume(root, saved):
    pipe = ckpt_pipe(root, checkpoint=saved)
    pipe.build()
    out = pipe.run()
    return out, pipe.checkpoint()
