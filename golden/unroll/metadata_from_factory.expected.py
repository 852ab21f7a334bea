"""Reader metadata asked of pipelines that reach the code some other way than a local call: returned by a
factory, passed to a helper, kept in a list, given to DALIGenericIterator. The migrated pipeline answers
epoch_size(), reader_meta() and max_batch_size itself (a ReaderStream); the code that asks is unchanged."""

import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import EpochIterator, Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


def files(root, *, batch_size=4):
    # the reader is named, so its metadata can be asked for
    reader = ndd.readers.File(file_root=root, name="Reader", pad_last_batch=True, max_batch_size=batch_size)

    @Prefetch(depth=2)
    def steps():
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                # images are decoded on the CPU
                yield ndd.decoders.image(jpegs), labels

    return ReaderStream(steps(), {"Reader": reader}, batch_size)


def make(root):
    pipe = files(root)
    return pipe


def steps_per_epoch(pipe):
    return -(-pipe.epoch_size("Reader") // pipe.max_batch_size)


def first_shard_info(pipes):
    meta = pipes[0].reader_meta("Reader")
    return meta["number_of_shards"], meta["pad_last_batch"]


def run(root):
    pipe = make(root)
    print(steps_per_epoch(pipe), first_shard_info([pipe]))
    loader = EpochIterator(make(root), ["images", "labels"], reader_name="Reader")
    for batch in loader:
        print(batch[0]["labels"].shape)


def make_with_block(root):
    def pipe_steps(*, batch_size=2):
        reader = ndd.readers.File(file_root=root, name="Listed", max_batch_size=batch_size)

        @Prefetch(depth=2)
        def steps():
            while True:
                for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                    yield ndd.decoders.image(jpegs), labels

        return ReaderStream(steps(), {"Listed": reader}, batch_size)
    pipe = pipe_steps()
    return pipe


def listed_steps(root):
    pipe = make_with_block(root)
    return pipe.epoch_size("Listed") // pipe.max_batch_size
