"""A Pipeline subclass whose reader is made by a helper method that returns an ops reader."""
from nvidia.dali import fn, ops, types
from nvidia.dali.pipeline import Pipeline


class EvalPipe(Pipeline):
    def __init__(self, batch_size, files, seed):
        super().__init__(batch_size, 2, None, seed=seed)
        self.input_x = self.get_reader(files)

    def get_reader(self, data, shuffle=False):
        return ops.readers.Numpy(files=data, random_shuffle=shuffle, seed=self.seed, bytes_per_sample_hint=100)

    def define_graph(self):
        img = self.input_x(name="ReaderX")
        return img * 2.0


pipe = EvalPipe(2, ["a.npy"], 3)
pipe.build()
print(pipe.epoch_size("ReaderX"))
(out,) = pipe.run()
