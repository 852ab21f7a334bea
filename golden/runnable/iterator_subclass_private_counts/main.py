"""Subclasses of the PyTorch iterators that read the plugin's private state, as training scripts write them: a
DALIClassificationIterator subclass whose __len__ counts steps from self._size, self._num_gpus, self.batch_size and
the truth of self._last_batch_policy (its __init__ passes its own last_batch_policy flag by position, where the
plugin takes fill_last_batch), over a Pipeline subclass fed by an external source; and a DALIGenericIterator subclass
whose progress() reads self._counter (which already counts the batch the plugin prepared at construction) and
reports its policy, auto_reset and first batch."""

import argparse

import numpy as np
import nvidia.dali.fn as fn
from nvidia.dali import ops, pipeline_def
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, DALIGenericIterator


class Samples:
    """Batches of (value, label) from a list of numbers, round and round (the list is never exhausted)."""

    def __init__(self, values, batch_size):
        self.values, self.batch_size, self.i = values, batch_size, 0

    def __iter__(self):
        return self

    def __next__(self):
        batch = [self.values[(self.i + k) % len(self.values)] for k in range(self.batch_size)]
        self.i += self.batch_size
        return [np.array([v], np.float32) for v in batch], [np.array([v % 3], np.uint8) for v in batch]


class SamplesPipeline(Pipeline):
    def __init__(self, samples, batch_size, num_threads, device_id):
        super(SamplesPipeline, self).__init__(batch_size=batch_size, num_threads=num_threads, device_id=device_id,
                                              seed=12)
        self.source = ops.ExternalSource(source=samples, num_outputs=2)

    def define_graph(self):
        values, labels = self.source()
        return values * 2.0, labels


class CountedLoader(DALIClassificationIterator):
    def __init__(self, pipelines, size=-1, reader_name=None, auto_reset=False, last_batch_policy=True,
                 dynamic_shape=False, last_batch_padded=False):
        super().__init__(pipelines, size, reader_name, auto_reset, last_batch_policy, dynamic_shape,
                         last_batch_padded)

    def __len__(self):
        batch_count = self._size // (self._num_gpus * self.batch_size)
        last_batch = 1 if self._last_batch_policy else 0
        return batch_count + last_batch


@pipeline_def
def labels_pipeline(data_dir):
    jpegs, labels = fn.readers.file(file_root=data_dir, name="Reader")
    return labels


class Progress(DALIGenericIterator):
    def progress(self):
        return f"{self._counter}/{self._size} ({type(self._counter).__name__})"

    def describe(self):
        first = self._first_batch[0]["labels"].view(-1).tolist() if self._first_batch is not None else None
        return (f"policy {self._last_batch_policy}, auto_reset {self._auto_reset!r}, padded "
                f"{self._last_batch_padded!r}, reader {self._reader_name!r}, first batch {first}, consumed "
                f"{self._ever_consumed}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()

    values = [float(v) for v in range(11)]
    pipe = SamplesPipeline(Samples(values, 4), batch_size=4, num_threads=2, device_id=0)
    pipe.build()
    loader = CountedLoader(pipe, size=len(values), auto_reset=True, last_batch_policy=False)
    print(f"policy {loader._last_batch_policy}, {len(loader)} steps per epoch")
    for epoch in range(args.epochs):
        seen = [(batch[0]["data"].view(-1).tolist(), batch[0]["label"].view(-1).tolist()) for batch in loader]
        print(f"epoch {epoch}: {len(seen)} steps of {len(loader)}: {seen}")

    progress = Progress(labels_pipeline(args.data, batch_size=3, num_threads=2, device_id=0), ["labels"],
                        reader_name="Reader")
    print(f"made: {progress.progress()}; {progress.describe()}")
    for epoch in range(args.epochs):
        steps = []
        for batch in progress:
            steps.append((batch[0]["labels"].view(-1).tolist(), progress.progress()))
        print(f"epoch {epoch}: {steps}; {progress.describe()}")
        progress.reset()
        print(f"after reset: {progress.progress()}, len {len(progress)}")


if __name__ == "__main__":
    main()
