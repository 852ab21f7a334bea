"""Subclasses of the PyTorch iterators: one that uses only what the EpochIterator has derives from it and its
construction sites get the EpochIterator's arguments; one that reads the plugin's private state, and one whose
__init__ takes arguments of its own, and one given pipelines that are not ReaderStreams (size=, no reader_name)
stay in pipeline mode with their pipelines, marked."""

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import EpochIterator, Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


def train_pipe(root, *, batch_size=4):
    reader = ndd.readers.File(file_root=root, name="Reader", max_batch_size=batch_size)

    @Prefetch(depth=2)
    def steps():
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield ndd.decoders.image(jpegs, device="gpu"), labels

    return ReaderStream(steps(), {"Reader": reader}, batch_size)


# dali-migrate: DM230 val_pipe stays in pipeline mode with everything that uses it: line 59: Counting(...) not migrated: Counting derives from DALIGenericIterator and stays in pipeline mode: it reads self._pipes, which the migrated base (EpochIterator) does not have
@pipeline_def(batch_size=4, num_threads=2)
def val_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return fn.decoders.image(jpegs, device="mixed"), labels


def sized_pipe(root, *, batch_size=4):
    reader = ndd.readers.File(file_root=root, max_batch_size=batch_size)

    @Prefetch(depth=2)
    def steps():
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield ndd.decoders.image(jpegs, device="gpu"), labels

    return ReaderStream(steps(), {}, batch_size)


def test_pipe(root, *, batch_size=4):
    reader = ndd.readers.File(file_root=root, name="Reader", max_batch_size=batch_size)

    @Prefetch(depth=2)
    def steps():
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield ndd.decoders.image(jpegs, device="gpu"), labels

    return ReaderStream(steps(), {"Reader": reader}, batch_size)


class PairLoader(EpochIterator):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)

    def __next__(self):
        out = super().__next__()[0]
        return out["data"], out["label"].squeeze(-1)


# dali-migrate: DM212 Counting(DALIGenericIterator) stays in pipeline mode with its pipelines: it reads self._pipes, which the migrated base (EpochIterator) does not have
class Counting(DALIGenericIterator):
    def __next__(self):
        print("pipelines:", len(self._pipes))
        return super().__next__()


class Sized(EpochIterator):
    pass


class Named(EpochIterator):
    def __init__(self, pipe, name):
        super().__init__(pipe, [name, "label"], reader_name="Reader")


train = PairLoader(train_pipe("/data"), output_map=["data", "label"], reader_name="Reader", last_batch_policy="PARTIAL")
# dali-migrate: DM212 Counting(...) not migrated: Counting derives from DALIGenericIterator and stays in pipeline mode: it reads self._pipes, which the migrated base (EpochIterator) does not have
val = Counting([val_pipe("/data")], ["data", "label"], reader_name="Reader")
test = Named(test_pipe("/data"), "image")
sized = Sized(sized_pipe("/data"), output_map=["data", "label"], size=10)
