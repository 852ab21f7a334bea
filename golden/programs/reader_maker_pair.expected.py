"""Two readers made by one helper method of a Pipeline subclass, read in one statement; and a made reader
called inside an expression (left marked)."""
from nvidia.dali import ops
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import ReaderStream  # written by dali-migrate (migrate --write recreates it)


class SegPipe(ReaderStream):
    def __init__(self, batch_size, imgs, lbls, seed):
        self.batch_size = batch_size
        self.num_threads = 2
        self.device_id = None
        self.seed = seed
        self.input_x = ndd.readers.Numpy(files=imgs, shard_id=0, num_shards=1, seed=self.seed, shuffle_after_epoch=True, name="ReaderX", max_batch_size=self.batch_size)
        self._readers = {**self._readers, "ReaderX": self.input_x}
        self.input_y = ndd.readers.Numpy(files=lbls, shard_id=0, num_shards=1, seed=self.seed, shuffle_after_epoch=True, name="ReaderY", max_batch_size=self.batch_size)
        self._readers = {**self._readers, "ReaderY": self.input_y}

    def get_reader(self, data):
        return ndd.readers.Numpy(files=data, shard_id=0, num_shards=1, seed=self.seed, shuffle_after_epoch=True)

    def steps(self):
        if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
            ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4

        def endless(reader):  # one reader's batches, epoch after epoch, as pipe.run() read them
            while True:
                yield from reader.next_epoch(batch_size=self.batch_size)

        for (img,), (lbl,) in zip(endless(self.input_x), endless(self.input_y)):
            yield img, lbl * 2.0


pipe = SegPipe(2, ["a.npy"], ["b.npy"], 3)
print(pipe.epoch_size("ReaderX"))
img, lbl = next(pipe)


# dali-migrate: DM212 Refused stays in pipeline mode: self.input (the reader make() returns) is not called by a statement of its own in define_graph (`x = self.input(...)`)
class Refused(Pipeline):
    def __init__(self, batch_size, files):
        super().__init__(batch_size, 2, None)
        self.input = self.make(files)

    # dali-migrate: DM230 make builds part of Refused, which stays in pipeline mode with everything that uses it: see its definition
    def make(self, files):
        return ops.readers.Numpy(files=files)

    def define_graph(self):
        return self.input(name="Reader") + 1.0


refused = Refused(2, ["c.npy"])
refused.build()
(arrays,) = refused.run()
