import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import EpochIterator, Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


def files(root, *, batch_size=4):
    reader = ndd.readers.File(file_root=root, name="Reader", max_batch_size=batch_size)

    @Prefetch(depth=2)
    def steps():
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield ndd.resize(ndd.decoders.image(jpegs, device="gpu"), size=(8, 8)), labels

    return ReaderStream(steps(), {"Reader": reader}, batch_size)


def train(root):
    loader = EpochIterator(files(root), ["data", "label"], reader_name="Reader", last_batch_policy="PARTIAL")
    seen = [len(batch[0]["label"]) for batch in loader]
    # the plugin's iterator has no shutdown(): the original raises AttributeError here, and so does the migration
    loader.shutdown()
    return seen
