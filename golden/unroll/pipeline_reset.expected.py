import inspect
import nvidia.dali.experimental.dynamic as ndd
from nvidia.dali.types import SampleInfo
from dali_dynamic_compat import EpochIterator, Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


def files(root, *, batch_size=2):
    reader = ndd.readers.File(file_root=root, name="Reader", max_batch_size=batch_size)

    @Prefetch(depth=2)
    def steps():
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield jpegs, labels

    return ReaderStream(steps(), {"Reader": reader}, batch_size)


def fed(source, *, batch_size=2):
    source_2 = source
    source_2 = source_2() if inspect.isgeneratorfunction(source_2) else source_2
    source_2_next = iter(source_2).__next__ if hasattr(source_2, '__iter__') else None
    source_2_takes_info = source_2_next is None and len(inspect.signature(source_2).parameters) > 0

    def steps(epoch_idx=0):
        source_2_step = 0  # the iteration in the epoch, as pipeline mode counted it
        while True:
            try:
                data = [source_2_next() if source_2_next else source_2(SampleInfo(source_2_step * batch_size + i, i, source_2_step, epoch_idx)) if source_2_takes_info else source_2() for i in range(batch_size)]
            except StopIteration:
                return  # the epoch ends: pipe.run() raised StopIteration until pipe.reset()
            source_2_step += 1
            data = ndd.as_batch(data)
            yield (data,)

    return ReaderStream(steps(), {}, batch_size, restart=steps)


class Loader:
    def __init__(self, root):
        self.pipe = files(root)

    def __iter__(self):
        return EpochIterator([self.pipe], ["jpegs", "labels"], reader_name="Reader")


def epochs(source):
    pipe = fed(source)
    for _ in range(2):
        try:
            while True:
                next(pipe)
        except StopIteration:
            # restarts the source that ended: the migrated pipeline starts its next epoch
            pipe.reset()
