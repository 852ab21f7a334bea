"""Subclasses of the PyTorch iterators: one that uses only what the EpochIterator has derives from it and its
construction sites get the EpochIterator's arguments; one that reads the plugin's private state, and one whose
__init__ takes arguments of its own, and one given pipelines that are not ReaderStreams (size=, no reader_name)
stay in pipeline mode with their pipelines, marked."""

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, DALIGenericIterator, LastBatchPolicy


@pipeline_def(batch_size=4, num_threads=2)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return fn.decoders.image(jpegs, device="mixed"), labels


@pipeline_def(batch_size=4, num_threads=2)
def val_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return fn.decoders.image(jpegs, device="mixed"), labels


@pipeline_def(batch_size=4, num_threads=2)
def sized_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return fn.decoders.image(jpegs, device="mixed"), labels


@pipeline_def(batch_size=4, num_threads=2)
def test_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return fn.decoders.image(jpegs, device="mixed"), labels


class PairLoader(DALIClassificationIterator):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)

    def __next__(self):
        out = super().__next__()[0]
        return out["data"], out["label"].squeeze(-1)


class Counting(DALIGenericIterator):
    def __next__(self):
        print("pipelines:", len(self._pipes))
        return super().__next__()


class Sized(DALIGenericIterator):
    pass


class Named(DALIGenericIterator):
    def __init__(self, pipe, name):
        super().__init__(pipe, [name, "label"], reader_name="Reader")


train = PairLoader(train_pipe("/data"), reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL)
val = Counting([val_pipe("/data")], ["data", "label"], reader_name="Reader")
test = Named(test_pipe("/data"), "image")
sized = Sized(sized_pipe("/data"), ["data", "label"], size=10)
