"""A last-batch policy kept in a variable: the tool cannot tell how the epoch ends, so the iterator is left."""

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


@pipeline_def(batch_size=4, num_threads=2, device_id=None)
def pipe(root):
    arrays = fn.readers.numpy(file_root=root, name="Reader")
    return arrays


def loader(root, policy=LastBatchPolicy.DROP):
    p = pipe(root)
    p.build()
    return DALIGenericIterator([p], ["data"], reader_name="Reader", last_batch_policy=policy)
