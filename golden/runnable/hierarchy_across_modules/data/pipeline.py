"""The base of the project's pipelines: options, shared ops objects, the readers and helpers; no define_graph
(each subclass, in a module of its own, defines it)."""

import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class GenericPipeline(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, **kwargs):
        super().__init__(batch_size, num_threads, device_id, seed=kwargs["seed"])
        self.kwargs = kwargs
        self.patch_size = kwargs["patch_size"]
        self.shard_id = kwargs["shard_id"]
        self.imgs = kwargs["imgs"]
        self.input_x = self.get_reader(self.imgs)
        self.cast = ops.Cast(dtype=types.FLOAT)

    def get_reader(self, data):
        return ops.readers.Numpy(files=data, shard_id=self.shard_id, num_shards=self.kwargs["gpus"],
                                 pad_last_batch=True)

    def crop(self, data):
        return fn.crop(data, crop=self.patch_size, out_of_bounds_policy="pad")

    def scaled(self, data, factor):
        return self.cast(data) * factor
