"""Checkpointing that is not migrated (a `with pipe:` pipeline or a subclass whose checkpoint= is computed
inside, a computed checkpoint= at a call): marked, never silently dropped."""

import nvidia.dali.experimental.dynamic as ndd


# dali-migrate: DM219 pipe: enable_checkpointing has no pipeline-level counterpart: create the reader with enable_checkpointing=True and register it (and any RNG) by name in an ndd.checkpoint.Checkpoint before the first next_epoch (not migrated: Pipeline(checkpoint=open(path, "rb").read() if path else None) is not a parameter of make_pipe())
def make_pipe(root, path=None):
    def pipe_steps(*, batch_size=4, num_threads=2, device_id=None, seed=None):
        if num_threads is not None and num_threads > ndd.get_num_threads():
            ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        reader = ndd.readers.File(file_root=root, random_shuffle=True, seed=3)
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield jpegs, labels
    pipe = pipe_steps()
    return pipe


def ckpt_pipe(root, *, batch_size=4, num_threads=2, device_id=None, seed=None, checkpoint=None):
    if num_threads is not None and num_threads > ndd.get_num_threads():
        ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
    reader = ndd.readers.File(file_root=root, random_shuffle=True, seed=3, enable_checkpointing=True)
    # checkpointing: readers and RNGs registered by name before the first next_epoch (restored if loaded)
    if checkpoint is not None:
        checkpoint.register(reader, "reader")
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield jpegs, labels


# dali-migrate: DM219 LoadedPipe: enable_checkpointing has no pipeline-level counterpart: create the reader with enable_checkpointing=True and register it (and any RNG) by name in an ndd.checkpoint.Checkpoint before the first next_epoch (not migrated: Pipeline(checkpoint=open(path, "rb").read()) is not a parameter of __init__)
class LoadedPipe:
    """The checkpoint is read inside __init__: there is no parameter to pass an ndd checkpoint through."""

    def __init__(self, root, path):
        self.batch_size = 4
        self.num_threads = 2
        self.device_id = None
        self.seed = None
        self.input = ndd.readers.File(file_root=root, random_shuffle=True, seed=3)

    def __iter__(self):
        if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
            ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        while True:
            for jpegs, labels in self.input.next_epoch(batch_size=self.batch_size):
                yield (labels,)


def save(root):
    pipe = make_pipe(root)
    next(pipe)
    # dali-migrate: DM219 pipe.checkpoint(): dynamic mode checkpoints readers and RNGs through ndd.checkpoint.Checkpoint (collect/save); pipeline checkpoints do not load there
    return pipe.checkpoint()


def resume(root, path):
    # dali-migrate: DM219 checkpoint= is not migrated here: ckpt_pipe(checkpoint=...) now takes an ndd.checkpoint.Checkpoint (create one, deserialize() the saved ndd state into it, pass it); pipeline checkpoints do not load there
    pipe = ckpt_pipe(root, checkpoint=open(path, "rb").read())
    return next(pipe)
