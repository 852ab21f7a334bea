"""Checkpointing is not migrated yet: it is marked, never silently dropped."""

import nvidia.dali.experimental.dynamic as ndd


# dali-migrate: DM219 ckpt_pipe: enable_checkpointing has no pipeline-level counterpart: create the reader with enable_checkpointing=True and register it (and any RNG) by name in an ndd.checkpoint.Checkpoint before the first next_epoch
def ckpt_pipe(root, *, batch_size=4, num_threads=2, device_id=None, seed=None):
    ndd.set_num_threads(num_threads)
    reader = ndd.readers.File(file_root=root, random_shuffle=True, seed=3)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield jpegs, labels


def resume(root, saved):
    # dali-migrate: DM219 checkpoint= is not migrated: restore reader/RNG state with ndd.checkpoint.Checkpoint().load(...) and register(reader, name) before the first next_epoch
    pipe = ckpt_pipe(root, checkpoint=saved)
    out = next(pipe)
    # dali-migrate: DM219 pipe.checkpoint(): dynamic mode checkpoints readers and RNGs through ndd.checkpoint.Checkpoint (collect/save); pipeline checkpoints do not load there
    return out, pipe.checkpoint()
