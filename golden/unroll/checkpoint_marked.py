"""Checkpointing that is not migrated (a `with pipe:` pipeline or a subclass whose checkpoint= is computed
inside, a computed checkpoint= at a call): marked, never silently dropped."""

import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
from nvidia.dali import Pipeline, pipeline_def


def make_pipe(root, path=None):
    pipe = Pipeline(batch_size=4, num_threads=2, device_id=None, enable_checkpointing=True,
                    checkpoint=open(path, "rb").read() if path else None)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=3)
        pipe.set_outputs(jpegs, labels)
    return pipe


@pipeline_def(batch_size=4, num_threads=2, device_id=None, enable_checkpointing=True)
def ckpt_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=3)
    return jpegs, labels


class LoadedPipe(Pipeline):
    """The checkpoint is read inside __init__: there is no parameter to pass an ndd checkpoint through."""

    def __init__(self, root, path):
        super().__init__(batch_size=4, num_threads=2, device_id=None, enable_checkpointing=True,
                         checkpoint=open(path, "rb").read())
        self.input = ops.readers.File(file_root=root, random_shuffle=True, seed=3)

    def define_graph(self):
        jpegs, labels = self.input()
        return labels


def save(root):
    pipe = make_pipe(root)
    pipe.build()
    pipe.run()
    return pipe.checkpoint()


def resume(root, path):
    pipe = ckpt_pipe(root, checkpoint=open(path, "rb").read())
    pipe.build()
    return pipe.run()
