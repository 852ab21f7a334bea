"""main.py reads plain attributes of a Pipeline subclass of another module (pipes.py): a loader class given the
pipeline hands len(pipeline.dataset) to DALIGenericIterator's size= and reads pipeline.num_classes, a function
reads the folder the constructor here was given and calls a method of the data object; two epochs."""

import os
import sys

import numpy as np
from nvidia.dali.plugin.pytorch import DALIGenericIterator

from pipes import FolderPipe


class Loader:
    def __init__(self, pipeline):
        self.num_classes = pipeline.num_classes
        self.size = len(pipeline.dataset)
        self.iterator = DALIGenericIterator([pipeline], ["images", "labels"], size=len(pipeline.dataset),
                                            auto_reset=True)

    def __len__(self):
        return len(self.iterator)

    def __iter__(self):
        for batch in self.iterator:
            labels = batch[0]["labels"].ravel()
            yield batch[0]["images"], np.eye(self.num_classes, dtype=np.int64)[labels.numpy()]


def summary(pipe):
    return os.path.basename(pipe.data_dir), pipe.dataset.per_class(), pipe.num_classes


if __name__ == "__main__":
    pipe = FolderPipe(batch_size=4, num_threads=2, device_id=0, data_dir=sys.argv[1])
    pipe.build()
    print(summary(pipe))
    loader = Loader(pipe)
    print("batches per epoch", len(loader), "samples", loader.size)
    for epoch in range(2):
        for images, onehot in loader:
            print(epoch, tuple(images.shape), int(images.sum()), onehot.sum(axis=0).tolist())
