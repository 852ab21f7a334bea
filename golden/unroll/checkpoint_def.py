"""Checkpointing a @pipeline_def pipeline: save after some steps, restore into a new pipeline."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=12, enable_checkpointing=True)
def ckpt_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=3, name="Reader")
    images = fn.decoders.image(jpegs)
    images = fn.resize(images, resize_x=16, resize_y=16)
    angle = fn.random.uniform(range=(-30.0, 30.0))
    return fn.rotate(images, angle=angle, keep_size=True), labels, angle


def run_and_save(root, steps):
    pipe = ckpt_pipe(root)
    pipe.build()
    outputs = [pipe.run() for _ in range(steps)]
    return outputs, pipe.checkpoint()


def resume(root, saved, steps):
    pipe = ckpt_pipe(root, checkpoint=saved)
    pipe.build()
    return [pipe.run() for _ in range(steps)]
