"""Checkpointing a @pipeline_def pipeline: save after some steps, restore into a new pipeline."""

import nvidia.dali.experimental.dynamic as ndd


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


def ckpt_pipe(root, *, batch_size=4, seed=12, checkpoint=None):
    ndd.random.set_seed(seed)
    reader = ndd.readers.File(file_root=root, random_shuffle=True, seed=3, name="Reader", enable_checkpointing=True)
    # checkpointing: readers and RNGs registered by name before the first next_epoch (restored if loaded)
    if checkpoint is not None:
        checkpoint.register(reader, "Reader")
        checkpoint.register(ndd.random.get_default_rng(), "rng")
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs)
            images = ndd.resize(images, resize_x=16, resize_y=16)
            angle = ndd.random.uniform(range=(-30.0, 30.0), batch_size=batch_size)
            yield ndd.rotate(images, angle=angle, keep_size=True), labels, angle


def run_and_save(root, steps):
    pipe_checkpoint = ndd.checkpoint.Checkpoint()
    pipe = ckpt_pipe(root, checkpoint=pipe_checkpoint)
    outputs = [next(pipe) for _ in range(steps)]
    pipe_checkpoint.collect()
    return outputs, pipe_checkpoint.serialize()


def resume(root, saved, steps):
    pipe_checkpoint = ndd.checkpoint.Checkpoint()
    if saved is not None:
        pipe_checkpoint.deserialize(saved)
    pipe = ckpt_pipe(root, checkpoint=pipe_checkpoint)
    return [next(pipe) for _ in range(steps)]
