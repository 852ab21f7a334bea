from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


class Counting(DALIGenericIterator):
    # it reads the plugin's _pipes (pipeline-mode objects), so it stays; the pipeline its __init__ builds stays with it
    def __init__(self, root):
        @pipeline_def(batch_size=4, num_threads=2, device_id=0)
        def files():
            jpegs, labels = fn.readers.file(file_root=root, name="Reader")
            return labels

        super().__init__(files(), ["labels"], reader_name="Reader")

    def progress(self):
        return self._counter / self._pipes[0].epoch_size("Reader")


def loader(root):
    return Counting(root)
