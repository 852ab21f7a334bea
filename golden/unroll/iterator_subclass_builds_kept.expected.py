from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


# dali-migrate: DM212 Counting(DALIGenericIterator) stays in pipeline mode with its pipelines: it reads self._pipes, which the migrated base (EpochIterator) does not have
class Counting(DALIGenericIterator):
    # it reads the plugin's _pipes (pipeline-mode objects), so it stays; the pipeline its __init__ builds stays with it
    def __init__(self, root):
        # dali-migrate: DM230 files stays in pipeline mode with everything that uses it: line 13: super().__init__(...) not migrated: Counting derives from DALIGenericIterator and stays in pipeline mode: it reads self._pipes, which the migrated base (EpochIterator) does not have
        @pipeline_def(batch_size=4, num_threads=2, device_id=0)
        def files():
            jpegs, labels = fn.readers.file(file_root=root, name="Reader")
            return labels

        # dali-migrate: DM212 super().__init__(...) not migrated: Counting derives from DALIGenericIterator and stays in pipeline mode: it reads self._pipes, which the migrated base (EpochIterator) does not have
        super().__init__(files(), ["labels"], reader_name="Reader")

    def progress(self):
        return self._counter / self._pipes[0].epoch_size("Reader")


def loader(root):
    # dali-migrate: DM212 Counting(...) not migrated: Counting derives from DALIGenericIterator and stays in pipeline mode: it reads self._pipes, which the migrated base (EpochIterator) does not have
    return Counting(root)
