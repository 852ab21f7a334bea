"""A Pipeline subclass whose reader is made by a helper method that returns an ops reader."""

import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import ReaderStream  # written by dali-migrate (migrate --write recreates it)


class EvalPipe(ReaderStream):
    def __init__(self, batch_size, files, seed):
        self.batch_size = batch_size
        self.num_threads = 2
        self.device_id = None
        self.seed = seed
        self.input_x = ndd.readers.Numpy(files=files, random_shuffle=False, seed=self.seed, name="ReaderX", max_batch_size=self.batch_size)
        self._readers = {"ReaderX": self.input_x}

    def get_reader(self, data, shuffle=False):
        return ndd.readers.Numpy(files=data, random_shuffle=shuffle, seed=self.seed)

    def steps(self):
        if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
            ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        while True:
            for (img,) in self.input_x.next_epoch(batch_size=self.batch_size):
                yield (img * 2.0,)


pipe = EvalPipe(2, ["a.npy"], 3)
print(pipe.epoch_size("ReaderX"))
(out,) = next(pipe)
