import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import EpochIterator, Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


def more_files(root, *, batch_size=2):
    reader = ndd.readers.File(file_root=root, name="Reader", max_batch_size=batch_size)

    @Prefetch(depth=2)
    def steps():
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield jpegs, labels

    return ReaderStream(steps(), {"Reader": reader}, batch_size)


def given_loader(root, policy):
    pipe = more_files(root)
    # a policy from the caller: passed on as it is (the migrated iterator reads a member or its name at run time)
    return EpochIterator([pipe], ["jpegs", "labels"], reader_name="Reader", last_batch_policy=policy)
