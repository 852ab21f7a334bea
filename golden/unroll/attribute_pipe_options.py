"""A Pipeline kept in an attribute, made in __init__ from a config object and filled by another method: __init__
stores the options it computed (not the literal ones, nor those that only tuned pipeline mode) on the object, in
the order the Pipeline evaluated them, and the filling method's block becomes the generator with those as its
defaults. A method runs it several times, another resets it, one hands it to DALIGenericIterator. A second class
makes its Pipeline from literals only and is filled by a method its caller calls; a third fills it through a method
__init__ calls (called once, so the Pipeline is filled once) and builds it after."""
import nvidia.dali.fn as fn
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator


class Loader:
    def __init__(self, config):
        self.config = config
        if config.shuffle:
            self.pipe = Pipeline(config.batch_size, config.workers, device_id=None, seed=config.seed * 2,
                                 exec_async=config.overlap, prefetch_queue_depth={"cpu_size": 2, "gpu_size": 2})
        self.setup()

    def setup(self):
        with self.pipe:
            jpegs, labels = fn.readers.file(file_root=self.config.root, random_shuffle=True, name="Reader")
            images = fn.decoders.image(jpegs, device="cpu")
            flip = fn.random.coin_flip()
            self.pipe.set_outputs(fn.flip(images, horizontal=flip), labels)

    def steps(self, count):
        return [self.pipe.run() for _ in range(count)]

    def rewind(self):
        self.pipe.reset()

    def torch_loader(self):
        return DALIGenericIterator([self.pipe], ["images", "labels"], reader_name="Reader")


class Evaluation:
    def __init__(self, root):
        self.root = root
        self.pipeline = Pipeline(batch_size=8, num_threads=2, device_id=None)

    def define(self):
        with self.pipeline:
            data = fn.readers.numpy(file_root=self.root)
            self.pipeline.set_outputs(data)

    def run(self):
        (data,) = self.pipeline.run()
        return data.as_array().mean()


class Chained:
    def __init__(self, root, batch_size):
        self.root = root
        self.chained_pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
        self._setup()
        self.chained_pipe.build()

    def _setup(self):
        self._define()

    def _define(self):
        with self.chained_pipe:
            data = fn.readers.numpy(file_root=self.root)
            self.chained_pipe.set_outputs(data * 2)

    def next(self):
        (data,) = self.chained_pipe.run()
        return data.as_array()


class Config:
    root, batch_size, workers, seed, shuffle, overlap = "/data", 4, 2, 3, True, False


loader = Loader(Config())
print(len(loader.steps(2)))
loader.rewind()
for batch in loader.torch_loader():
    print(batch[0]["labels"].shape)
evaluation = Evaluation("/arrays")
evaluation.define()
print(evaluation.run())
print(Chained("/arrays", 2).next().shape)
