"""The base of the project's pipelines: options, shared ops objects, the readers and helpers; no define_graph
(each subclass, in a module of its own, defines it)."""

import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import ReaderStream  # written by dali-migrate (migrate --write recreates it)


class GenericPipeline(ReaderStream):
    def __init__(self, batch_size, num_threads, device_id, **kwargs):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = kwargs["seed"]
        self.kwargs = kwargs
        self.patch_size = kwargs["patch_size"]
        self.shard_id = kwargs["shard_id"]
        self.imgs = kwargs["imgs"]
        self.input_x = ndd.readers.Numpy(files=self.imgs, shard_id=self.shard_id, num_shards=self.kwargs["gpus"],
                                 pad_last_batch=True, max_batch_size=self.batch_size)
        self.cast = lambda *inputs, **kwargs: ndd.cast(*inputs, dtype=types.FLOAT, **kwargs)

    def get_reader(self, data):
        return ndd.readers.Numpy(files=data, shard_id=self.shard_id, num_shards=self.kwargs["gpus"],
                                 pad_last_batch=True)

    def crop(self, data):
        return ndd.crop(data, crop=self.patch_size, out_of_bounds_policy="pad")

    def scaled(self, data, factor):
        return self.cast(data) * factor
