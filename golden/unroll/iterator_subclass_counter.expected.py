from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


# dali-migrate: DM230 files stays in pipeline mode with everything that uses it: line 14: super().__init__(...) not migrated: Counting derives from DALIGenericIterator and stays in pipeline mode: it reads self._counter, which the migrated base (EpochIterator) does not have; line 21: Counting(...) not migrated: Counting derives from DALIGenericIterator and stays in pipeline mode: it reads self._counter, which the migrated base (EpochIterator) does not have
@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def files(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return jpegs, labels


# dali-migrate: DM212 Counting(DALIGenericIterator) stays in pipeline mode with its pipelines: it reads self._counter, which the migrated base (EpochIterator) does not have
class Counting(DALIGenericIterator):
    # the plugin's _counter already counts the batch it prepared at construction: kept, marked
    def __init__(self, pipes):
        # dali-migrate: DM212 super().__init__(...) not migrated: Counting derives from DALIGenericIterator and stays in pipeline mode: it reads self._counter, which the migrated base (EpochIterator) does not have
        super().__init__(pipes, ["jpegs", "labels"], reader_name="Reader")

    def progress(self):
        return self._counter / self._size


def loader(root):
    # dali-migrate: DM212 Counting(...) not migrated: Counting derives from DALIGenericIterator and stays in pipeline mode: it reads self._counter, which the migrated base (EpochIterator) does not have
    return Counting(files(root))
