"""Attributes of a Pipeline subclass that the migrated class would not give the same value stay marked when code
outside the class reads them: a DataNode define_graph stores (self.jpegs), an ops reader and an ops operator (the
migration moves or rewrites them), a counter iter_setup advances (the steps run it, ahead of the caller), an
attribute define_graph also assigns, a types constant (it becomes a dynamic-mode dtype), and a plain attribute
assigned from outside the class (the migrated steps run ahead of the caller: they could see it later)."""
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class ReaderPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir):
        super().__init__(batch_size, num_threads, device_id, seed=3)
        self.input = ops.readers.File(file_root=data_dir, random_shuffle=False)
        self.decode = ops.decoders.Image(device="cpu")
        self.dtype = types.FLOAT
        self.mode = "train"
        self.steps_run = 0
        self.folder = data_dir

    def define_graph(self):
        self.jpegs, self.labels = self.input(name="Reader")
        self.mode = "graph"
        return self.decode(self.jpegs), self.labels

    def iter_setup(self):
        self.steps_run += 1


def show(pipe):
    print(pipe.jpegs)
    print(pipe.input)
    print(pipe.decode)
    print(pipe.steps_run)
    print(pipe.mode)
    print(pipe.dtype)
    pipe.folder = "other"


if __name__ == "__main__":
    pipe = ReaderPipe(4, 2, 0, "images")
    pipe.build()
    pipe.run()
    show(pipe)
