from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.base_iterator import LastBatchPolicy
from nvidia.dali.plugin.pytorch import DALIGenericIterator


# dali-migrate: DM230 files stays in pipeline mode with everything that uses it: line 22: self._iter.next: a DALI framework iterator has no dynamic-mode `.next` that dali-migrate can write
@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def files(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return jpegs, labels


class DataLayer:
    def __init__(self, root, drop_last):
        self.pipe = files(root)
        self.pipe.build()
        # the iterator stays in pipeline mode (its .next() has no migration): so does its policy, unmarked
        policy = LastBatchPolicy.DROP if drop_last else LastBatchPolicy.PARTIAL
        self._iter = DALIGenericIterator([self.pipe], ["jpegs", "labels"], reader_name="Reader",
                                         last_batch_policy=policy)

    def __next__(self):
        # dali-migrate: DM231 self._iter.next: a DALI framework iterator has no dynamic-mode `.next` that dali-migrate can write
        return self._iter.next()
