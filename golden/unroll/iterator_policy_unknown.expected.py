from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


# dali-migrate: DM230 more_files stays in pipeline mode with everything that uses it: line 15: DALIGenericIterator(...) not migrated: last_batch_policy=policy is not one of the LastBatchPolicy values written out, so the tool cannot tell how the epoch ends; iterate the migrated generator with next() and convert each output with .torch()
@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def more_files(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return jpegs, labels


def given_loader(root, policy):
    pipe = more_files(root)
    pipe.build()
    # a policy from the caller: the tool cannot tell which member it is (marked, kept)
    # dali-migrate: DM212 DALIGenericIterator(...) not migrated: last_batch_policy=policy is not one of the LastBatchPolicy values written out, so the tool cannot tell how the epoch ends; iterate the migrated generator with next() and convert each output with .torch()
    return DALIGenericIterator([pipe], ["jpegs", "labels"], reader_name="Reader", last_batch_policy=policy)
