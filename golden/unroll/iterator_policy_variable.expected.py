import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import EpochIterator, Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


def files(root, *, batch_size=4):
    reader = ndd.readers.File(file_root=root, name="Reader", max_batch_size=batch_size)

    @Prefetch(depth=2)
    def steps():
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield jpegs, labels

    return ReaderStream(steps(), {"Reader": reader}, batch_size)


def training_loader(root, drop_last):
    pipe = files(root)
    # a policy chosen into a variable: passed on, its members become strings
    policy = "DROP" if drop_last else "PARTIAL"
    return EpochIterator([pipe], ["jpegs", "labels"], reader_name="Reader", last_batch_policy=policy)
