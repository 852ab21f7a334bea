"""A loader's method fills a Pipeline in `with pipeline:`: readers copied to the GPU with .gpu(), a
conditional last-batch policy, and epoch_size() asked for all readers at once."""

import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import EpochIterator, Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


class Loader:
    def __init__(self, root, batch_size, validation):
        self.root = root
        self.batch_size = batch_size
        self.pipeline = self.make_pipeline()
        self.iterator = EpochIterator([self.pipeline], ["images", "arrays"], reader_name="images", last_batch_policy="PARTIAL" if validation
                                            else "DROP")
        self.sizes = self.pipeline.epoch_size()

    def make_pipeline(self):
        def pipeline_steps(*, batch_size=self.batch_size):
            reader = ndd.readers.Numpy(file_root=self.root, name="images", max_batch_size=batch_size)
            reader_2 = ndd.readers.Numpy(file_root=self.root, name="arrays", max_batch_size=batch_size)

            @Prefetch(depth=2)
            def steps():
                if ndd.get_num_threads() < 2:
                    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4

                def endless(reader):  # one reader's batches, epoch after epoch, as pipe.run() read them
                    while True:
                        yield from reader.next_epoch(batch_size=batch_size)

                for (images,), (arrays,) in zip(endless(reader), endless(reader_2)):
                    images = images.gpu()
                    yield images * 2, arrays

            return ReaderStream(steps(), {"images": reader, "arrays": reader_2}, batch_size)
        pipeline = pipeline_steps()
        return pipeline
