from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


class Loader(DALIGenericIterator):
    # the pipeline is built in __init__, not given: it becomes a ReaderStream, the class an EpochIterator
    def __init__(self, root, batch_size, drop_last):
        @pipeline_def(batch_size=batch_size, num_threads=2, device_id=0)
        def arrays():
            x = fn.readers.numpy(file_root=root, name="Reader")
            return x, x * 2

        policy = LastBatchPolicy.DROP if drop_last else LastBatchPolicy.PARTIAL
        super().__init__(arrays(), ["x", "twice"], reader_name="Reader", last_batch_policy=policy)


def loader(root):
    return Loader(root, 4, False)
