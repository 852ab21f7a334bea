"""Readers a Pipeline subclass's define_graph calls under an `if` on a build-time value: each is created once in
__init__ (an ops reader object where it was, an fn reader under the same condition) and listed by its name
under that condition; the steps keep the `if` and take the reader's batches there."""
from nvidia.dali import Pipeline, fn
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)

TRAINING = True


class TrainVal(ReaderStream):
    def __init__(self, batch_size, root, is_train):
        self.batch_size = batch_size
        self.num_threads = 4
        self.device_id = 0
        self.seed = 12
        self.is_train = is_train
        self.reader_train = ndd.readers.File(file_root=root, random_shuffle=True, name="Reader", seed=self.seed, max_batch_size=self.batch_size)
        self.reader_val = ndd.readers.File(file_root=root, name="Reader", max_batch_size=self.batch_size)
        if self.is_train:
            self._readers = {**self._readers, "Reader": self.reader_train}
        if not self.is_train:
            self._readers = {**self._readers, "Reader": self.reader_val}

    @Prefetch(depth=2)
    def steps(self):
        if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
            ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        def endless(reader):  # one reader's batches, epoch after epoch, as pipe.run() read them
            while True:
                yield from reader.next_epoch(batch_size=self.batch_size)

        if self.is_train:
            batches = endless(self.reader_train)
        else:
            batches_2 = endless(self.reader_val)
        while True:
            if self.is_train:
                jpegs, labels = next(batches)
            else:
                jpegs, labels = next(batches_2)
            yield ndd.decoders.image(jpegs, device="gpu"), labels


class Segmentation(ReaderStream):
    def __init__(self, batch_size, images, masks):
        self.batch_size = batch_size
        self.num_threads = 4
        self.device_id = 0
        self.seed = None
        self.input = ndd.readers.File(file_root=images, max_batch_size=self.batch_size)
        self.masks = ndd.readers.Numpy(file_root=masks, max_batch_size=self.batch_size)

    @Prefetch(depth=2)
    def steps(self):
        if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
            ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        def endless(reader):  # one reader's batches, epoch after epoch, as pipe.run() read them
            while True:
                yield from reader.next_epoch(batch_size=self.batch_size)

        if TRAINING:  # a module constant
            batches = endless(self.masks)
        while True:
            for jpegs, labels in self.input.next_epoch(batch_size=self.batch_size):
                if TRAINING:  # a module constant
                    (masks,) = next(batches)
                else:
                    masks = labels
                yield jpegs, masks


# dali-migrate: DM212 Named stays in pipeline mode: a reader under an `if` of define_graph is created in __init__, but its condition read self.evaluating, which __init__ does not set or binds itself
class Named(Pipeline):
    def __init__(self, batch_size, root):
        super().__init__(batch_size, 4, 0)
        self.root = root

    def define_graph(self):
        if self.evaluating:  # set by the caller after __init__: not known when the readers are made (left marked)
            data = fn.readers.numpy(file_root=self.root, name="Reader")
        else:
            data = fn.readers.numpy(file_root=self.root, random_shuffle=True, name="Reader")
        return data,


class EarlyReturn(ReaderStream):
    def __init__(self, batch_size, root, training):
        self.batch_size = batch_size
        self.num_threads = 4
        self.device_id = 0
        self.seed = None
        self.training = training
        self.train_input = ndd.readers.File(file_root=root, random_shuffle=True, name="Reader", seed=self.seed, max_batch_size=self.batch_size)
        self.eval_input = ndd.readers.File(file_root=root, name="Reader", max_batch_size=self.batch_size)
        if self.training:
            self._readers = {**self._readers, "Reader": self.train_input}
        if not self.training:
            self._readers = {**self._readers, "Reader": self.eval_input}

    @Prefetch(depth=2)
    def steps(self):
        if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
            ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        def endless(reader):  # one reader's batches, epoch after epoch, as pipe.run() read them
            while True:
                yield from reader.next_epoch(batch_size=self.batch_size)

        if self.training:
            batches = endless(self.train_input)
        else:
            batches_2 = endless(self.eval_input)
        while True:
            if self.training:
                jpegs, labels = next(batches)
                output, output_2 = ndd.decoders.image(jpegs, device="gpu"), labels
            else:
                jpegs, labels = next(batches_2)
                output, output_2 = ndd.decoders.image(jpegs, device="gpu"), labels
            yield output, output_2


if ndd.get_num_threads() < 4:
    ndd.set_num_threads(4)  # grow only: shrinking it after use hangs DALI 2.4


@Prefetch(depth=2)
def returns_in_branches(root, use_arrays, *, batch_size=4):
    def endless(reader):  # one reader's batches, epoch after epoch, as pipe.run() read them
        while True:
            yield from reader.next_epoch(batch_size=batch_size)

    if use_arrays:
        reader = ndd.readers.Numpy(file_root=root, name="Reader")
        batches = endless(reader)
    else:
        reader_2 = ndd.readers.File(file_root=root, name="Reader")
        batches_2 = endless(reader_2)
    while True:
        if use_arrays:
            (data,) = next(batches)
            output = data
        else:
            jpegs, labels = next(batches_2)
            output = ndd.decoders.image(jpegs)
        yield tuple(output) if isinstance(output, tuple) else (output,)
