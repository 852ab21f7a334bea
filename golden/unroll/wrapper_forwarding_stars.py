"""Loader classes and a factory that hand their *args/**kwargs to DALIGenericIterator (a wrapper that reshapes
the plugin's output): the iterator decides at run time, and what callers pass there (by position, or as
pipelines=) migrates. The pipelines: a Pipeline base class with define_graph, subclasses that create the reader in
their own __init__, and a @pipeline_def. A pipeline saved with serialize() stays in pipeline mode and goes to the
same wrapper (the plugin's own iterator then). (wrapper_stars_read.py: a wrapper that also reads its *args.)"""

import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali import pipeline_def
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


class Loader:
    def __init__(self, *args, **kwargs):
        self.inner = DALIGenericIterator(*args, **kwargs)

    def __iter__(self):
        return self

    def __next__(self):
        out = next(self.inner)[0]
        return out["small"].float().div(255), out["large"].float().div(255)

    @property
    def size(self):
        return self.inner._size

    def __len__(self):
        return self.inner._size // self.inner.batch_size

    def reset(self):
        self.inner.reset()


def make_loader(*args, output_map=("small", "large"), **kwargs):
    return DALIGenericIterator(*args, output_map=list(output_map), **kwargs)


class ScalePipeline(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, side):
        super().__init__(batch_size, num_threads, device_id)
        self.decode = ops.decoders.Image(device="mixed", output_type=types.RGB)
        self.shrink = ops.Resize(resize_x=side, resize_y=side)

    def define_graph(self):
        jpegs, _labels = self.input(name="Reader")
        large = self.decode(jpegs)
        return [self.shrink(large), large]


class FolderPipeline(ScalePipeline):
    def __init__(self, *, batch_size, num_threads, device_id, side, data_dir):
        super().__init__(batch_size, num_threads, device_id, side)
        self.input = ops.readers.File(file_root=data_dir)


class ListPipeline(ScalePipeline):
    def __init__(self, *, batch_size, num_threads, device_id, side, file_list):
        super().__init__(batch_size, num_threads, device_id, side)
        self.input = ops.readers.File(file_root="", file_list=file_list)


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def gray_pairs(root):
    jpegs, _ = fn.readers.file(file_root=root)
    large = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    return fn.resize(large, resize_x=4, resize_y=4), large


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def saved_pairs(root):
    jpegs, _ = fn.readers.file(file_root=root, name="Reader")
    large = fn.decoders.image(jpegs, device="mixed")
    return fn.resize(large, resize_x=4, resize_y=4), large


def train(root, file_list):
    pipe = FolderPipeline(batch_size=8, num_threads=2, device_id=0, side=32, data_dir=root)
    pipe.build()
    for small, large in Loader([pipe], ["small", "large"], size=pipe.epoch_size("Reader")):
        print(small.shape, large.shape)
    val = ListPipeline(batch_size=8, num_threads=2, device_id=0, side=32, file_list=file_list)
    loader = Loader(pipelines=[val], output_map=["small", "large"], reader_name="Reader",
                    last_batch_policy=LastBatchPolicy.PARTIAL)
    print(len(loader), loader.size)
    loader.reset()
    for step in make_loader(gray_pairs(root), size=10):
        print(step[0]["small"].shape)


def export(root, path):
    pipe = saved_pairs(root)
    pipe.serialize(filename=path)
    for small, large in Loader([pipe], ["small", "large"], reader_name="Reader"):
        print(small.shape)
