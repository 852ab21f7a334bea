import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types

from data.pipeline import GenericPipeline


class EvalPipeline(GenericPipeline):
    def __init__(self, batch_size, num_threads, device_id, **kwargs):
        super().__init__(batch_size, num_threads, device_id, **kwargs)
        if kwargs["reverse"]:
            self.input_y = ops.readers.Numpy(files=sorted(self.imgs, reverse=True), shard_id=self.shard_id,
                                             num_shards=kwargs["gpus"])
        else:
            self.input_y = ops.readers.Numpy(files=self.imgs, shard_id=self.shard_id, num_shards=kwargs["gpus"])

    def define_graph(self):
        x = self.input_x(name="ReaderX")
        y = self.input_y(name="ReaderY")
        return self.scaled(x, 1.0) - self.scaled(y, 1.0), fn.reductions.sum(y)
