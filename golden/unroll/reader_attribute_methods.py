"""A Pipeline subclass's other methods beside define_graph: __len__ and helpers that ask the pipeline for its
reader's metadata are kept by the migrated class (a ReaderStream answers epoch_size/reader_meta), and the code
that calls them on the pipeline stays as it was; a method that hands the ops reader object itself on has no
dynamic-mode counterpart (it would be an ndd reader) and stays marked, as does one that runs the pipeline itself."""
from nvidia.dali import Pipeline, ops


class Train(Pipeline):
    def __init__(self, batch_size, root, shard_id, num_shards):
        super().__init__(batch_size, 2, 0)
        self.input = ops.readers.File(file_root=root, shard_id=shard_id, num_shards=num_shards, pad_last_batch=True)
        self.decode = ops.decoders.Image(device="mixed")
        self.batches = 1000 // batch_size

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return self.decode(jpegs), labels

    def __len__(self):  # (DALI takes the pipeline's truth while it builds: this must not ask the reader)
        return self.batches

    def steps_per_epoch(self):
        return self.epoch_size("Reader") // self.batch_size

    def shard_size(self):
        meta = self.reader_meta("Reader")
        return meta["epoch_size_padded"] // meta["number_of_shards"]


class HandsOn(Pipeline):
    def __init__(self, batch_size, root):
        super().__init__(batch_size, 2, 0)
        self.input = ops.readers.File(file_root=root)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return jpegs, labels

    def reader(self):
        return self.input


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
pipe.build()
steps = pipe.steps_per_epoch()
print(len(pipe), steps, pipe.shard_size())
for _ in range(steps):
    images, labels = pipe.run()
