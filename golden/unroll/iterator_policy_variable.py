from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.base_iterator import LastBatchPolicy
from nvidia.dali.plugin.pytorch import DALIGenericIterator


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def files(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return jpegs, labels


def training_loader(root, drop_last):
    pipe = files(root)
    pipe.build()
    # a policy chosen into a variable: passed on, its members become strings
    policy = LastBatchPolicy.DROP if drop_last else LastBatchPolicy.PARTIAL
    return DALIGenericIterator([pipe], ["jpegs", "labels"], reader_name="Reader", last_batch_policy=policy)
