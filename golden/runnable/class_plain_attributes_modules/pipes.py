"""The pipeline of main.py: a Pipeline subclass with legacy ops readers whose __init__ sets plain attributes (a
user data object listing the images, the class count, the folder given to it)."""

import os

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


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
