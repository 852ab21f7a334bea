"""A loader's method fills a Pipeline in `with pipeline:`: readers copied to the GPU with .gpu(), a
conditional last-batch policy, and epoch_size() asked for all readers at once."""

from nvidia.dali import fn
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


class Loader:
    def __init__(self, root, batch_size, validation):
        self.root = root
        self.batch_size = batch_size
        self.pipeline = self.make_pipeline()
        self.pipeline.build()
        self.iterator = DALIGenericIterator([self.pipeline], ["images", "arrays"], reader_name="images",
                                            last_batch_policy=LastBatchPolicy.PARTIAL if validation
                                            else LastBatchPolicy.DROP)
        self.sizes = self.pipeline.epoch_size()

    def make_pipeline(self):
        pipeline = Pipeline(batch_size=self.batch_size, num_threads=2, device_id=0)
        with pipeline:
            images = fn.readers.numpy(file_root=self.root, name="images").gpu()
            arrays = fn.readers.numpy(file_root=self.root, name="arrays")
            pipeline.set_outputs(images * 2, arrays)
        return pipeline
