"""Checkpointing a Pipeline subclass built from ops objects: save after some steps, restore into a new
object through the checkpoint= its __init__ forwards to Pipeline."""

import nvidia.dali.ops as ops
from nvidia.dali import Pipeline


class CkptPipe(Pipeline):
    def __init__(self, root, batch_size=4, num_threads=2, device_id=None, checkpoint=None):
        super().__init__(batch_size, num_threads, device_id, seed=12, enable_checkpointing=True,
                         checkpoint=checkpoint)
        self.input = ops.readers.File(file_root=root, random_shuffle=True, seed=3, name="Reader")
        self.decode = ops.decoders.Image()
        self.resize = ops.Resize(resize_x=16, resize_y=16)
        self.angle = ops.random.Uniform(range=(-30.0, 30.0))
        self.rotate = ops.Rotate(keep_size=True)

    def define_graph(self):
        jpegs, labels = self.input()
        images = self.resize(self.decode(jpegs))
        angle = self.angle()
        return self.rotate(images, angle=angle), labels, angle


class PlainCkptPipe(Pipeline):
    """enable_checkpointing without a checkpoint parameter: __init__ gets one."""

    def __init__(self, root):
        super().__init__(batch_size=4, num_threads=2, device_id=None, enable_checkpointing=True)
        self.input = ops.readers.File(file_root=root, random_shuffle=True, seed=3)

    def define_graph(self):
        jpegs, labels = self.input()
        return labels


def run_and_save(root, steps):
    pipe = CkptPipe(root)
    pipe.build()
    outputs = [pipe.run() for _ in range(steps)]
    return outputs, pipe.checkpoint()


def resume(root, saved, steps):
    pipe = CkptPipe(root, checkpoint=saved)
    pipe.build()
    return [pipe.run() for _ in range(steps)]


def plain_save(root, steps):
    pipe = PlainCkptPipe(root)
    pipe.build()
    outputs = [pipe.run() for _ in range(steps)]
    return outputs, pipe.checkpoint()
