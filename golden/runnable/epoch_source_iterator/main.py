"""An external source that is an iterator class: each epoch ends with StopIteration, and __iter__ starts
the next one (reshuffled with its own seeded generator). Two pipelines made by one factory feed the
PyTorch iterators for 3 epochs, reset() after each."""

import os
import sys

import numpy as np
import torch
from nvidia.dali import fn, types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, DALIGenericIterator, LastBatchPolicy


class JpegBatches:
    """Batches of (encoded JPEG, label) over the files of a folder tree; the last batch of an epoch is short
    unless wrap=True, which fills it from the start of the list, as a fixed-size feeder does."""

    def __init__(self, root, batch_size, wrap=False, seed=0):
        self.batch_size = batch_size
        self.wrap = wrap
        self.rng = np.random.default_rng(seed)
        self.items = []
        for label, folder in enumerate(sorted(os.listdir(root))):
            for name in sorted(os.listdir(os.path.join(root, folder))):
                self.items.append((os.path.join(root, folder, name), label))
        self.epochs_started = 0

    def __iter__(self):
        self.position = 0
        self.order = self.rng.permutation(len(self.items))
        self.epochs_started += 1
        return self

    def __next__(self):
        if self.position >= len(self.items):
            self.__iter__()
            raise StopIteration
        size = self.batch_size if self.wrap else min(self.batch_size, len(self.items) - self.position)
        jpegs, labels = [], []
        for k in range(size):
            path, label = self.items[self.order[(self.position + k) % len(self.items)]]
            jpegs.append(np.fromfile(path, dtype=np.uint8))
            labels.append(np.array([label], dtype=np.int32))
        self.position += size
        return jpegs, labels


def make_pipeline(batch_size, num_threads, device_id, external_data):
    pipe = Pipeline(batch_size, num_threads, device_id)
    with pipe:
        jpegs, labels = fn.external_source(source=external_data, num_outputs=2)
        images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
        images = fn.resize(images, resize_x=8, resize_y=8)
        pipe.set_outputs(fn.cast(images, dtype=types.UINT8), labels)
    return pipe


def run_epochs(loader, name, epochs=3):
    for epoch in range(epochs):
        sizes, sums, labels = [], [], []
        for batch in loader:
            data = batch[0]["data"]
            sizes.append(len(data))
            sums.append(int(data.to(torch.int64).sum()))
            labels += batch[0]["label"].view(-1).tolist()
        print(f"{name} epoch {epoch}: sizes {sizes} sums {sums} labels {labels}")
        loader.reset()


if __name__ == "__main__":
    root = sys.argv[1]
    short = JpegBatches(root, 3, seed=1)
    pipe = make_pipeline(batch_size=3, num_threads=2, device_id=0, external_data=short)
    loader = DALIClassificationIterator(pipe, last_batch_padded=True, last_batch_policy=LastBatchPolicy.PARTIAL)
    run_epochs(loader, "partial")
    print("iter() calls on the short source:", short.epochs_started)

    wrapped = JpegBatches(root, 4, wrap=True, seed=2)
    pipe = make_pipeline(batch_size=4, num_threads=2, device_id=0, external_data=wrapped)
    loader = DALIGenericIterator([pipe], ["data", "label"], last_batch_policy=LastBatchPolicy.FILL)
    run_epochs(loader, "fill")
    print("iter() calls on the wrapped source:", wrapped.epochs_started)
