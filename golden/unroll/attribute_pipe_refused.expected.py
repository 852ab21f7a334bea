"""Pipelines kept in attributes, made in __init__ and filled by another method, that stay in pipeline mode: each
block is marked with its own cause (the Pipeline itself gets no marker of its own besides its unit's)."""
import nvidia.dali.fn as fn
from nvidia.dali.pipeline import Pipeline


class FilledAgain:
    def __init__(self, root, batch_size):
        self.root = root
        # dali-migrate: DM230 self.train_pipe stays in pipeline mode with everything that uses it: line 14: self.train_pipe stays in pipeline mode: fill() fills self.train_pipe and may run more than once (called by __init__(), restart()): each call would make a new generator, where pipeline mode filled one Pipeline
        self.train_pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
        self.fill()

    def fill(self):
        # dali-migrate: DM212 self.train_pipe stays in pipeline mode: fill() fills self.train_pipe and may run more than once (called by __init__(), restart()): each call would make a new generator, where pipeline mode filled one Pipeline
        with self.train_pipe:
            jpegs, labels = fn.readers.file(file_root=self.root)
            self.train_pipe.set_outputs(labels)

    def restart(self):
        self.fill()


class ReadBeforeFilled:
    def __init__(self, root, batch_size):
        self.root = root
        # dali-migrate: DM230 self.eval_pipe stays in pipeline mode with everything that uses it: line 30: self.eval_pipe stays in pipeline mode: __init__() reads self.eval_pipe before fill() fills it, where the migrated object has no self.eval_pipe yet (it holds the generator once fill() has run)
        self.eval_pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
        self.size = self.eval_pipe.max_batch_size
        self.fill()

    def fill(self):
        # dali-migrate: DM212 self.eval_pipe stays in pipeline mode: __init__() reads self.eval_pipe before fill() fills it, where the migrated object has no self.eval_pipe yet (it holds the generator once fill() has run)
        with self.eval_pipe:
            jpegs, labels = fn.readers.file(file_root=self.root)
            self.eval_pipe.set_outputs(labels)


class BoundTwice:
    def __init__(self, root, batch_size):
        self.root = root
        # dali-migrate: DM230 self.test_pipe stays in pipeline mode with everything that uses it: line 42: self.test_pipe stays in pipeline mode: the class binds self.test_pipe 2 times, and the tool follows a Pipeline bound once
        self.test_pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
        self.fill()

    def fill(self):
        # dali-migrate: DM212 self.test_pipe stays in pipeline mode: the class binds self.test_pipe 2 times, and the tool follows a Pipeline bound once
        with self.test_pipe:
            jpegs, labels = fn.readers.file(file_root=self.root)
            self.test_pipe.set_outputs(labels)

    def close(self):
        self.test_pipe = None


class ForwardedOptions:
    def __init__(self, root, **options):
        self.root = root
        # dali-migrate: DM230 self.pipe stays in pipeline mode with everything that uses it: line 57: self.pipe stays in pipeline mode: self.pipe = Pipeline(...) gets its options by *args/**kwargs, which the method that fills it cannot see
        self.pipe = Pipeline(**options)
        self.fill()

    def fill(self):
        # dali-migrate: DM212 self.pipe stays in pipeline mode: self.pipe = Pipeline(...) gets its options by *args/**kwargs, which the method that fills it cannot see
        with self.pipe:
            jpegs, labels = fn.readers.file(file_root=self.root)
            self.pipe.set_outputs(labels)


class FilledInClosure:
    def __init__(self, root, batch_size):
        self.root = root
        # dali-migrate: DM105 Pipeline is pipeline-mode API that was not migrated here: rewrite it with dynamic-mode (ndd) code
        self.inner_pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
        self.fill()

    def fill(self):
        def define():
            # dali-migrate: DM212 self.inner_pipe stays in pipeline mode: self.inner_pipe is filled in a loop or a nested function of fill() (the tool migrates a Pipeline filled once, in the method's own body)
            with self.inner_pipe:
                jpegs, labels = fn.readers.file(file_root=self.root)
                self.inner_pipe.set_outputs(labels)

        define()


class Train:
    def __init__(self, root, batch_size):
        self.root = root
        # dali-migrate: DM230 self._pipe stays in pipeline mode with everything that uses it: line 84: self._pipe stays in pipeline mode: 2 classes of the module make a Pipeline in __init__ as self._pipe, and the tool tells such Pipelines apart by the method that makes them, not by its class; line 92: Pipeline is pipeline-mode API that was not migrated here: rewrite it with dynamic-mode (ndd) code; line 96: self._pipe stays in pipeline mode: 2 classes of the module make a Pipeline in __init__ as self._pipe, and the tool tells such Pipelines apart by the method that makes them, not by its class
        self._pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
        self.fill()

    def fill(self):
        # dali-migrate: DM212 self._pipe stays in pipeline mode: 2 classes of the module make a Pipeline in __init__ as self._pipe, and the tool tells such Pipelines apart by the method that makes them, not by its class
        with self._pipe:
            jpegs, labels = fn.readers.file(file_root=self.root)
            self._pipe.set_outputs(labels)


class Validation:
    def __init__(self, root, batch_size):
        self.root = root
        # dali-migrate: DM105 Pipeline is pipeline-mode API that was not migrated here: rewrite it with dynamic-mode (ndd) code
        self._pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
        self.fill()

    def fill(self):
        # dali-migrate: DM212 self._pipe stays in pipeline mode: 2 classes of the module make a Pipeline in __init__ as self._pipe, and the tool tells such Pipelines apart by the method that makes them, not by its class
        with self._pipe:
            jpegs, labels = fn.readers.file(file_root=self.root)
            self._pipe.set_outputs(labels * 2)
