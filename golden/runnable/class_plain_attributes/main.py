"""A Pipeline subclass with legacy ops readers keeps plain attributes its __init__ sets: a user data object that
lists the images (its len() is the epoch size), the number of classes and the image folder. A loader class given
the pipeline reads them (DALIGenericIterator's size= from len(pipeline.dataset), pipeline.num_classes) and a
function calls a method of the data object; the pipeline is read for two epochs."""

import os
import sys

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator


class ImageFolder:
    """The .jpg files under a folder, one class per sub-folder."""

    def __init__(self, root):
        self.classes = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
        self.files = sorted(os.path.join(c, f) for c in self.classes for f in os.listdir(os.path.join(root, c)))

    def __len__(self):
        return len(self.files)

    def per_class(self):
        return {c: sum(f.startswith(c + os.sep) for f in self.files) for c in self.classes}


class FolderPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir):
        super().__init__(batch_size, num_threads, device_id, seed=7)
        self.data_dir = data_dir
        self.dataset = ImageFolder(data_dir)
        self.num_classes = len(self.dataset.classes)
        self.input = ops.readers.File(file_root=data_dir, random_shuffle=False)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.resize = ops.Resize(device="cpu", resize_x=16, resize_y=12)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return self.resize(self.decode(jpegs)), labels


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
