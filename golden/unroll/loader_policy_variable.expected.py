"""A last-batch policy kept in a variable: the tool cannot tell how the epoch ends, so the iterator is left."""

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


# dali-migrate: DM230 pipe stays in pipeline mode with everything that uses it: line 16: DALIGenericIterator(...) not migrated: last_batch_policy=policy is not one of the LastBatchPolicy values written out, so the tool cannot tell how the epoch ends; iterate the migrated generator with next() and convert each output with .torch()
@pipeline_def(batch_size=4, num_threads=2, device_id=None)
def pipe(root):
    arrays = fn.readers.numpy(file_root=root, name="Reader")
    return arrays


# dali-migrate: DM105 LastBatchPolicy.DROP is pipeline-mode API that was not migrated here: rewrite it with dynamic-mode (ndd) code
def loader(root, policy=LastBatchPolicy.DROP):
    p = pipe(root)
    p.build()
    # dali-migrate: DM212 DALIGenericIterator(...) not migrated: last_batch_policy=policy is not one of the LastBatchPolicy values written out, so the tool cannot tell how the epoch ends; iterate the migrated generator with next() and convert each output with .torch()
    return DALIGenericIterator([p], ["data"], reader_name="Reader", last_batch_policy=policy)
