"""Pipelines of the project, used from train.py."""

import nvidia.dali.fn as fn
from nvidia.dali import Pipeline, pipeline_def


@pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=3)
def train_pipe(root, size=16):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=1, name="Reader")
    images = fn.decoders.image(jpegs)
    return fn.resize(images, resize_x=size, resize_y=size), labels


class ValPipe(Pipeline):
    def __init__(self, root, batch_size=4, num_threads=2, device_id=None):
        super().__init__(batch_size, num_threads, device_id, seed=5)
        self.root = root

    def define_graph(self):
        jpegs, labels = fn.readers.file(file_root=self.root, name="Reader")
        images = fn.decoders.image(jpegs)
        return fn.resize(images, resize_x=8, resize_y=8), labels


def make_padded_pipe(root):
    pipe = Pipeline(batch_size=3, num_threads=2, device_id=None)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=root, pad_last_batch=True)
        pipe.set_outputs(fn.decoders.image(jpegs), labels)
    return pipe


@pipeline_def(batch_size=4, num_threads=2, device_id=None, enable_checkpointing=True)
def resumable_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=9)
    return labels,
