import torch
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import feed_ndarray, to_torch_type


@pipeline_def(batch_size=8, num_threads=2, device_id=0)
def train_pipe(root, shard_id, num_shards):
    jpegs, labels = fn.readers.file(file_root=root, shard_id=shard_id, num_shards=num_shards, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed")
    return fn.resize(images, resize_x=64, resize_y=64), labels


class TorchLoader(object):
    def __init__(self, pipelines, output_map, size):
        if not isinstance(pipelines, list):
            pipelines = [pipelines]
        self._pipes = pipelines
        self._size = size
        self.batch_size = pipelines[0].max_batch_size
        self.output_map = output_map
        for p in self._pipes:
            p.build()
            p._prefetch()
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
            outputs.append(p.share_outputs())
        for i in range(len(self._pipes)):
            tensors = []
            for j, out in enumerate(outputs[i]):
                tensors.append(out.as_tensor())
            if self._data_batches[i][self._current] is None:
                self._data_batches[i][self._current] = [
                    torch.zeros(t.shape(), dtype=to_torch_type[t.dtype]) for t in tensors]
            for j, t in enumerate(tensors):
                feed_ndarray(t, self._data_batches[i][self._current][j])
        for p in self._pipes:
            p.release_outputs()
            p.schedule_run()
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
        for p in self._pipes:
            p.reset()


class ClassificationLoader(TorchLoader):
    def __init__(self, pipelines, size):
        super().__init__(pipelines, ["data", "label"], size)


def make_loader(root, shards):
    pipes = [train_pipe(root, s, shards) for s in range(shards)]
    return ClassificationLoader(pipes, pipes[0].epoch_size("Reader"))
