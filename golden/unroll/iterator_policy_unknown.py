from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def more_files(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return jpegs, labels


def given_loader(root, policy):
    pipe = more_files(root)
    pipe.build()
    # a policy from the caller: passed on as it is (the migrated iterator reads a member or its name at run time)
    return DALIGenericIterator([pipe], ["jpegs", "labels"], reader_name="Reader", last_batch_policy=policy)
