"""Graph parts written as functions: a reader function (parameters, a default, keywords) used by two
pipelines, and a helper with a seeded random op called twice in one pipeline."""

import nvidia.dali.experimental.dynamic as ndd


class ReaderStream:
    """A migrated pipeline: next() gives one step (a tuple of ndd.Batch) as pipe.run() did, and
    epoch_size(name=None), reader_meta(name=None) and max_batch_size answer as the pipeline did.

    Written by dali-migrate. The readers were created with max_batch_size, so their metadata can be
    asked for before the first step (DALI 2.4.0). A migrated Pipeline subclass derives from it: its
    __init__ sets batch_size and _readers, and its steps() generator (the former define_graph) gives
    the steps from the first next() on. A pipeline fed by an external source that ends an epoch
    (StopIteration) gets restart: after the end, next() raises StopIteration until reset() starts
    the next epoch's steps, as pipe.run() and pipe.reset() did.
    """

    _steps = None
    _readers = {}  # {name: reader}

    _restart = None  # steps of the next epoch (its index), for a pipeline whose external source ends an epoch
    _epoch = 0
    _ended = False

    def __init__(self, steps, readers, batch_size, restart=None):
        self._steps = steps
        self._readers = readers
        self.batch_size = batch_size
        self._restart = restart

    @property
    def max_batch_size(self):
        return self.batch_size

    def __iter__(self):
        return self

    def __next__(self):
        if self._steps is None:  # a migrated Pipeline subclass: its steps see it through a weak proxy, so
            import weakref  # dropping the object stops them (and their thread) at once, as dropping a generator does

            self._steps = type(self).steps(weakref.proxy(self))
        if self._ended:  # as pipe.run(): the epoch's StopIteration again until reset()
            raise StopIteration
        try:
            return next(self._steps)
        except StopIteration:
            self._ended = self._restart is not None
            raise

    def reset(self):
        """pipe.reset(): after the source ended an epoch, the next epoch's steps start; before that, nothing."""
        if self._ended:
            self._ended = False
            self._epoch += 1
            self._steps = self._restart(self._epoch)

    def close(self):
        if self._steps is not None:
            self._steps.close()

    def reader_meta(self, name=None):
        if name is None:  # every reader, by name
            return {name: reader.get_metadata() for name, reader in self._readers.items()}
        return self._readers[name].get_metadata()

    def epoch_size(self, name=None):  # with the padding to a multiple of the shards, as Pipeline.epoch_size
        if name is None:
            return {name: meta["epoch_size_padded"] for name, meta in self.reader_meta().items()}
        return self.reader_meta(name)["epoch_size_padded"]


def jitter(images, *, rng):
    angle = ndd.random.uniform(range=(-10.0, 10.0), rng=rng, batch_size=images.batch_size)  # one angle per sample, reproducible
    return ndd.rotate(images, angle=angle, fill_value=0)


def train_pipe(shard, *, batch_size=4, seed=None):
    rng_1 = ndd.random.RNG(seed=7)
    rng_2 = ndd.random.RNG(seed=7)
    reader = ndd.readers.File(file_root="images", shard_id=shard, num_shards=4, name="Reader")
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs)
            yield jitter(images, rng=rng_1), jitter(images, rng=rng_2), labels


def eval_pipe(*, batch_size=4, seed=None):
    reader = ndd.readers.File(file_root="images", shard_id=0, num_shards=2, name="Reader", max_batch_size=batch_size)

    def steps():
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield ndd.decoders.image(jpegs), labels

    return ReaderStream(steps(), {"Reader": reader}, batch_size)


pipe = train_pipe(1)
first, second, labels = next(pipe)
other = eval_pipe()
print(other.epoch_size("Reader"))
