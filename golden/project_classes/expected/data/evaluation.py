from data.pipeline import GenericPipeline
import contextlib
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


class EvalPipeline(GenericPipeline):
    def __init__(self, batch_size, num_threads, device_id, **kwargs):
        super().__init__(batch_size, num_threads, device_id, **kwargs)
        if kwargs["reverse"]:
            self.input_y = ndd.readers.Numpy(files=sorted(self.imgs, reverse=True), shard_id=self.shard_id,
                                             num_shards=kwargs["gpus"], name="ReaderY", max_batch_size=self.batch_size)
            self._readers = {**self._readers, "ReaderY": self.input_y}
        else:
            self.input_y = ndd.readers.Numpy(files=self.imgs, shard_id=self.shard_id, num_shards=kwargs["gpus"], name="ReaderY", max_batch_size=self.batch_size)
            self._readers = {**self._readers, "ReaderY": self.input_y}
        self._readers = {**self._readers, "ReaderX": self.input_x}

    @Prefetch(depth=2)
    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4

            def endless(reader):  # one reader's batches, epoch after epoch, as pipe.run() read them
                while True:
                    yield from reader.next_epoch(batch_size=self.batch_size)

            for (x,), (y,) in zip(endless(self.input_x), endless(self.input_y)):
                yield self.scaled(x, 1.0) - self.scaled(y, 1.0), ndd.reductions.sum(y)
