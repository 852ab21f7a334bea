"""Pipeline subclasses whose __init__ chooses their reader by a condition (if/else, a conditional expression), and
whose define_graph reads a reader or a source under `if self.train:` (a named one there is created in __init__ under
that condition, and listed by its name)."""
from nvidia.dali import fn, ops, types
from nvidia.dali.pipeline import Pipeline


class TrainPipe(Pipeline):
    def __init__(self, batch_size, root, file_list, use_list):
        super().__init__(batch_size, 2, None, seed=12)
        if use_list:
            self.input = ops.readers.File(file_root=root, file_list=file_list, random_shuffle=True)
        else:
            self.input = ops.readers.File(file_root=root, random_shuffle=True, seed=4)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return self.decode(jpegs), labels


class ArrayPipe(Pipeline):
    def __init__(self, batch_size, root, shuffled):
        super().__init__(batch_size, 2, None)
        self.read = ops.readers.Numpy(file_root=root, random_shuffle=True, seed=3) if shuffled else ops.readers.Numpy(file_root=root)

    def define_graph(self):
        arrays = self.read()
        return arrays * 2.0


pipe = TrainPipe(4, "imgs", "list.txt", False)
pipe.build()
print(pipe.epoch_size("Reader"))
images, labels = pipe.run()
arrays = ArrayPipe(2, "arr", True)
arrays.build()
(a,) = arrays.run()


class Loader(Pipeline):
    def __init__(self, batch_size, root, source, train):
        super().__init__(batch_size, 2, None, seed=3)
        self.root = root
        self.source = source
        self.train = train

    def define_graph(self):
        if self.train:
            jpegs = fn.external_source(source=self.source)
            labels = fn.constant(idata=0)
        else:
            jpegs, labels = fn.readers.file(file_root=self.root)
        return fn.decoders.image(jpegs), labels


class Named(Pipeline):
    def __init__(self, batch_size, root, train):
        super().__init__(batch_size, 2, None)
        self.root = root
        self.train = train

    def define_graph(self):
        if self.train:
            jpegs, labels = fn.readers.file(file_root=self.root, random_shuffle=True, name="Reader")
        else:
            jpegs, labels = fn.readers.file(file_root=self.root, name="Reader")
        return jpegs, labels


loader = Loader(2, "imgs", None, False)
loader.build()
images, labels = loader.run()
named = Named(2, "imgs", True)
named.build()
print(named.epoch_size("Reader"))
