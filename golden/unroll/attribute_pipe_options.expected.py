"""A Pipeline kept in an attribute, made in __init__ from a config object and filled by another method: __init__
stores the options it computed (not the literal ones, nor those that only tuned pipeline mode) on the object, in
the order the Pipeline evaluated them, and the filling method's block becomes the generator with those as its
defaults. A method runs it several times, another resets it, one hands it to DALIGenericIterator. A second class
makes its Pipeline from literals only and is filled by a method its caller calls; a third fills it through a method
__init__ calls (called once, so the Pipeline is filled once) and builds it after."""

import numpy as np
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import EpochIterator, Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


class Loader:
    def __init__(self, config):
        self.config = config
        if config.shuffle:
            self.pipe_batch_size = config.batch_size  # the options self.pipe was made with, for setup()
            self.pipe_num_threads = config.workers
            self.pipe_seed = config.seed * 2
        self.setup()

    def setup(self):
        def pipe_steps(*, batch_size=self.pipe_batch_size, num_threads=self.pipe_num_threads, seed=self.pipe_seed):
            reader = ndd.readers.File(file_root=self.config.root, random_shuffle=True, name="Reader", seed=seed, max_batch_size=batch_size)

            def steps():
                if num_threads is not None and num_threads > ndd.get_num_threads():
                    ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
                if seed is not None:
                    ndd.random.set_seed(seed)
                while True:
                    for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                        images = ndd.decoders.image(jpegs, device="cpu")
                        flip = ndd.random.coin_flip(batch_size=batch_size)
                        yield ndd.flip(images, horizontal=flip), labels

            return ReaderStream(steps(), {"Reader": reader}, batch_size)
        self.pipe = pipe_steps()

    def steps(self, count):
        return [next(self.pipe) for _ in range(count)]

    def rewind(self):
        pass

    def torch_loader(self):
        return EpochIterator([self.pipe], ["images", "labels"], reader_name="Reader")


class Evaluation:
    def __init__(self, root):
        self.root = root

    def define(self):
        @Prefetch(depth=2)
        def pipeline_steps(*, batch_size=8):
            if ndd.get_num_threads() < 2:
                ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4
            reader = ndd.readers.Numpy(file_root=self.root)
            while True:
                for (data,) in reader.next_epoch(batch_size=batch_size):
                    yield (data,)
        self.pipeline = pipeline_steps()

    def run(self):
        (data,) = next(self.pipeline)
        return np.array(ndd.as_tensor(data)).mean()


class Chained:
    def __init__(self, root, batch_size):
        self.root = root
        self.chained_pipe_batch_size = batch_size  # the options self.chained_pipe was made with, for _define()
        self._setup()

    def _setup(self):
        self._define()

    def _define(self):
        @Prefetch(depth=2)
        def chained_pipe_steps(*, batch_size=self.chained_pipe_batch_size):
            reader = ndd.readers.Numpy(file_root=self.root)
            while True:
                for (data,) in reader.next_epoch(batch_size=batch_size):
                    yield (data * 2,)
        self.chained_pipe = chained_pipe_steps()

    def next(self):
        (data,) = next(self.chained_pipe)
        return np.array(ndd.as_tensor(data))


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
