"""Early returns under build-time conditions: a Pipeline subclass whose define_graph returns early when a flag of
__init__ is set (its reader made by the base class's reader maker, given kwargs["..."]), and a @pipeline_def
with nested early returns on its arguments. Each branch yields its own outputs."""

import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali import pipeline_def
from nvidia.dali.pipeline import Pipeline


class BasePipeline(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, **kwargs):
        super().__init__(batch_size=batch_size, num_threads=num_threads, device_id=device_id, seed=kwargs["seed"])
        self.kwargs = kwargs

    def get_reader(self, data):
        return ops.readers.Numpy(files=data, shard_id=0, num_shards=1, seed=self.kwargs["seed"])


class TrainPipeline(BasePipeline):
    def __init__(self, batch_size, num_threads, device_id, **kwargs):
        super().__init__(batch_size, num_threads, device_id, **kwargs)
        self.input_x = self.get_reader(kwargs["imgs"])
        self.evaluate = kwargs["evaluate"]

    def define_graph(self):
        img = self.input_x(name="ReaderX")
        if self.evaluate:
            return img, fn.shapes(img)
        img = fn.flip(img, horizontal=fn.random.coin_flip())
        return img, fn.shapes(img)


@pipeline_def(batch_size=4, num_threads=2, device_id=None)
def volumes(files, raw, scale):
    data = fn.readers.numpy(files=files, name="Reader")
    if raw:
        return data
    data = fn.cast(data, dtype=types.FLOAT)
    if scale is not None:
        data = data * scale
        return data, fn.shapes(data)
    return data, data


pipe = TrainPipeline(4, 2, None, imgs=["a.npy", "b.npy"], seed=1, evaluate=True)
pipe.build()
image, shape = pipe.run()
raw = volumes(["a.npy"], False, 2.0)
raw.build()
outputs = raw.run()
print(len(outputs))
