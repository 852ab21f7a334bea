from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, DALIGenericIterator, LastBatchPolicy


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def files(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return jpegs, labels


class Loader(DALIClassificationIterator):
    # arguments of its own, the plugin's passed on by position: the fifth is fill_last_batch
    def __init__(self, pipelines, reader_name, auto_reset, fill, padded=False):
        super().__init__(pipelines, -1, reader_name, auto_reset, fill, False, padded)

    def steps(self):
        return self._size // (self._num_gpus * self.batch_size)


class Named(DALIGenericIterator):
    def __init__(self, names, pipes, drop=True):
        policy = LastBatchPolicy.DROP if drop else LastBatchPolicy.PARTIAL
        super(Named, self).__init__(pipes, names, reader_name="Reader", last_batch_policy=policy)


def loaders(root):
    first = Loader(files(root), "Reader", True, False)
    second = Named(["jpegs", "labels"], [files(root)], drop=False)
    return first, second
