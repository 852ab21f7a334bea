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
                yield ndd.decoders.image(jpegs, device="gpu"), labels

    return ReaderStream(steps(), {"Reader": reader}, batch_size)


class Pairs(EpochIterator):
    # it returns the batch the plugin prepared at construction itself (as the plugin's __next__ does), then pairs
    def __init__(self, pipe, output_map=["images", "labels"]):
        self.output_map = output_map
        super().__init__(pipe, output_map, reader_name="Reader", auto_reset=True)

    def __next__(self):
        if self._first_batch is not None:
            batch = self._first_batch
            self._first_batch = None
            return batch
        step = super().__next__()[0]
        return step[self.output_map[0]], step[self.output_map[1]]

    def __len__(self):
        return -(-self.size // self.batch_size)


def loader(root):
    return Pairs(files(root))
