from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def files(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return jpegs, labels


class Counting(DALIGenericIterator):
    # the plugin's _counter already counts the batch it prepared at construction; the EpochIterator prepares and
    # counts it there too, so the subclass derives from it and computes the same
    def __init__(self, pipes):
        super().__init__(pipes, ["jpegs", "labels"], reader_name="Reader")

    def progress(self):
        return self._counter / self._size


def loader(root):
    return Counting(files(root))
