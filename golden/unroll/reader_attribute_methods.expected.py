"""A Pipeline subclass's other methods beside define_graph: __len__ and helpers that ask the pipeline for its
reader's metadata are kept by the migrated class (a ReaderStream answers epoch_size/reader_meta), and the code
that calls them on the pipeline stays as it was; a method that hands the ops reader object itself on has no
dynamic-mode counterpart (it would be an ndd reader) and stays marked, as does one that runs the pipeline itself."""
from nvidia.dali import Pipeline, ops
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


class Train(ReaderStream):
    def __init__(self, batch_size, root, shard_id, num_shards):
        self.batch_size = batch_size
        self.num_threads = 2
        self.device_id = 0
        self.seed = None
        self.input = ndd.readers.File(file_root=root, shard_id=shard_id, num_shards=num_shards, pad_last_batch=True, name="Reader", max_batch_size=self.batch_size)
        self._readers = {"Reader": self.input}
        self.batches = 1000 // batch_size

    @Prefetch(depth=2)
    def steps(self):
        if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
            ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        while True:
            for jpegs, labels in self.input.next_epoch(batch_size=self.batch_size):
                yield ndd.decoders.image(jpegs, device="gpu"), labels

    def __len__(self):  # (DALI takes the pipeline's truth while it builds: this must not ask the reader)
        return self.batches

    def steps_per_epoch(self):
        return self.epoch_size("Reader") // self.batch_size

    def shard_size(self):
        meta = self.reader_meta("Reader")
        return meta["epoch_size_padded"] // meta["number_of_shards"]


# dali-migrate: DM212 HandsOn stays in pipeline mode: self.input (an ops reader) is used by reader() too: it becomes an ndd reader there, not the ops object (ask the pipeline's epoch_size()/reader_meta() instead)
class HandsOn(Pipeline):
    def __init__(self, batch_size, root):
        super().__init__(batch_size, 2, 0)
        self.input = ops.readers.File(file_root=root)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return jpegs, labels

    def reader(self):
        return self.input


# dali-migrate: DM212 RunsItself stays in pipeline mode: next_labels() uses the pipeline's self.run, which the migrated class (ReaderStream) does not have
class RunsItself(Pipeline):
    def __init__(self, batch_size, root):
        super().__init__(batch_size, 2, 0)
        self.input = ops.readers.File(file_root=root)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return jpegs, labels

    def next_labels(self):  # the pipeline's own run(): a ReaderStream has none (left marked)
        jpegs, labels = self.run()
        return labels


pipe = Train(8, "images", 0, 2)
steps = pipe.steps_per_epoch()
print(len(pipe), steps, pipe.shard_size())
for _ in range(steps):
    images, labels = next(pipe)
