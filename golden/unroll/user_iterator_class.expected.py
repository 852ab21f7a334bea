import torch
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


def train_pipe(root, shard_id, num_shards, *, batch_size=8):
    reader = ndd.readers.File(file_root=root, shard_id=shard_id, num_shards=num_shards, name="Reader", max_batch_size=batch_size)

    @Prefetch(depth=2)
    def steps():
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                images = ndd.decoders.image(jpegs, device="gpu")
                yield ndd.resize(images, resize_x=64, resize_y=64), labels

    return ReaderStream(steps(), {"Reader": reader}, batch_size)


class TorchLoader(object):
    def __init__(self, pipelines, output_map, size):
        if not isinstance(pipelines, list):
            pipelines = [pipelines]
        self._pipes = pipelines
        self._size = size
        self.batch_size = pipelines[0].max_batch_size
        self.output_map = output_map
        self._data_batches = [[None, None] for _ in self._pipes]
        self._current = 0
        self._counter = 0
        self._first_batch = None
        self._first_batch = self.next()

    def __next__(self):
        if self._first_batch is not None:
            batch, self._first_batch = self._first_batch, None
            return batch
        if self._counter >= self._size:
            raise StopIteration
        outputs = []
        for p in self._pipes:
            outputs.append(next(p))
        for i in range(len(self._pipes)):
            tensors = []
            for j, out in enumerate(outputs[i]):
                tensors.append(ndd.as_tensor(out))
            if self._data_batches[i][self._current] is None:
                self._data_batches[i][self._current] = [
                    torch.zeros(list(t.shape), dtype=t.torch().dtype) for t in tensors]
            for j, t in enumerate(tensors):
                self._data_batches[i][self._current][j].copy_(t.torch())
        current, self._current = self._current, 1 - self._current
        self._counter += self.batch_size * len(self._pipes)
        return [dict(zip(self.output_map, db[current])) for db in self._data_batches]

    def next(self):
        return self.__next__()

    def __iter__(self):
        return self

    def __len__(self):
        return self._size // self.batch_size

    def reset(self):
        self._counter = 0


class ClassificationLoader(TorchLoader):
    def __init__(self, pipelines, size):
        super().__init__(pipelines, ["data", "label"], size)


def make_loader(root, shards):
    pipes = [train_pipe(root, s, shards) for s in range(shards)]
    return ClassificationLoader(pipes, pipes[0].epoch_size("Reader"))
