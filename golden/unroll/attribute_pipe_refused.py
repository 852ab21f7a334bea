"""Pipelines kept in attributes, made in __init__ and filled by another method, that stay in pipeline mode: each
block is marked with its own cause (the Pipeline itself gets no marker of its own besides its unit's)."""
import nvidia.dali.fn as fn
from nvidia.dali.pipeline import Pipeline


class FilledAgain:
    def __init__(self, root, batch_size):
        self.root = root
        self.train_pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
        self.fill()

    def fill(self):
        with self.train_pipe:
            jpegs, labels = fn.readers.file(file_root=self.root)
            self.train_pipe.set_outputs(labels)

    def restart(self):
        self.fill()


class ReadBeforeFilled:
    def __init__(self, root, batch_size):
        self.root = root
        self.eval_pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
        self.size = self.eval_pipe.max_batch_size
        self.fill()

    def fill(self):
        with self.eval_pipe:
            jpegs, labels = fn.readers.file(file_root=self.root)
            self.eval_pipe.set_outputs(labels)


class BoundTwice:
    def __init__(self, root, batch_size):
        self.root = root
        self.test_pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
        self.fill()

    def fill(self):
        with self.test_pipe:
            jpegs, labels = fn.readers.file(file_root=self.root)
            self.test_pipe.set_outputs(labels)

    def close(self):
        self.test_pipe = None


class ForwardedOptions:
    def __init__(self, root, **options):
        self.root = root
        self.pipe = Pipeline(**options)
        self.fill()

    def fill(self):
        with self.pipe:
            jpegs, labels = fn.readers.file(file_root=self.root)
            self.pipe.set_outputs(labels)


class FilledInClosure:
    def __init__(self, root, batch_size):
        self.root = root
        self.inner_pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
        self.fill()

    def fill(self):
        def define():
            with self.inner_pipe:
                jpegs, labels = fn.readers.file(file_root=self.root)
                self.inner_pipe.set_outputs(labels)

        define()


class Train:
    def __init__(self, root, batch_size):
        self.root = root
        self._pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
        self.fill()

    def fill(self):
        with self._pipe:
            jpegs, labels = fn.readers.file(file_root=self.root)
            self._pipe.set_outputs(labels)


class Validation:
    def __init__(self, root, batch_size):
        self.root = root
        self._pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
        self.fill()

    def fill(self):
        with self._pipe:
            jpegs, labels = fn.readers.file(file_root=self.root)
            self._pipe.set_outputs(labels * 2)
