"""Style 3: a Pipeline subclass whose define_graph calls fn operators."""

import nvidia.dali.fn as fn
from nvidia.dali.pipeline import Pipeline


class SubclassPipe(Pipeline):
    def __init__(self, root, batch_size=4, num_threads=2, device_id=None, seed=7):
        super().__init__(batch_size, num_threads, device_id, seed=seed)
        self.root = root

    def define_graph(self):
        jpegs, labels = fn.readers.file(file_root=self.root, random_shuffle=True, seed=7)
        images = fn.image_decoder(jpegs)
        images = fn.resize(images, resize_x=16, resize_y=16)
        return images, labels
