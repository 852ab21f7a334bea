"""Readers a Pipeline subclass's define_graph calls under an `if` on a build-time value: each is created once in
__init__ (an ops reader object where it was, an fn reader under the same condition) and listed by its name
under that condition; the steps keep the `if` and take the reader's batches there."""
from nvidia.dali import Pipeline, fn, ops, pipeline_def, types

TRAINING = True


class TrainVal(Pipeline):
    def __init__(self, batch_size, root, is_train):
        super().__init__(batch_size, 4, 0, seed=12)
        self.is_train = is_train
        self.reader_train = ops.readers.File(file_root=root, random_shuffle=True)
        self.reader_val = ops.readers.File(file_root=root)
        self.decode = ops.decoders.Image(device="mixed")

    def define_graph(self):
        if self.is_train:
            jpegs, labels = self.reader_train(name="Reader")
        else:
            jpegs, labels = self.reader_val(name="Reader")
        return self.decode(jpegs), labels


class Segmentation(Pipeline):
    def __init__(self, batch_size, images, masks):
        super().__init__(batch_size, 4, 0)
        self.input = ops.readers.File(file_root=images)
        self.masks = ops.readers.Numpy(file_root=masks)

    def define_graph(self):
        jpegs, labels = self.input()
        if TRAINING:  # a module constant
            masks = self.masks()
        else:
            masks = labels
        return jpegs, masks


class Named(Pipeline):
    def __init__(self, batch_size, root):
        super().__init__(batch_size, 4, 0)
        self.root = root

    def define_graph(self):
        if self.evaluating:  # set by the caller after __init__: not known when the readers are made (left marked)
            data = fn.readers.numpy(file_root=self.root, name="Reader")
        else:
            data = fn.readers.numpy(file_root=self.root, random_shuffle=True, name="Reader")
        return data,


class EarlyReturn(Pipeline):
    def __init__(self, batch_size, root, training):
        super().__init__(batch_size, 4, 0)
        self.training = training
        self.train_input = ops.readers.File(file_root=root, random_shuffle=True)
        self.eval_input = ops.readers.File(file_root=root)

    def define_graph(self):
        if self.training:
            jpegs, labels = self.train_input(name="Reader")
            return fn.decoders.image(jpegs, device="mixed"), labels
        jpegs, labels = self.eval_input(name="Reader")
        return fn.decoders.image(jpegs, device="mixed"), labels


@pipeline_def(batch_size=4, num_threads=4, device_id=0)
def returns_in_branches(root, use_arrays):
    if use_arrays:
        data = fn.readers.numpy(file_root=root, name="Reader")
        return data,
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return fn.decoders.image(jpegs),
