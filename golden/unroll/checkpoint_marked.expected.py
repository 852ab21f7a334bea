"""Checkpointing that is not migrated (a `with pipe:` pipeline or a subclass whose checkpoint= is computed
inside, a computed checkpoint= at a call): marked, never silently dropped."""

import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
from nvidia.dali import Pipeline, pipeline_def


def make_pipe(root, path=None):
    # dali-migrate: DM230 pipe stays in pipeline mode with everything that uses it: line 12: pipe: enable_checkpointing has no pipeline-level counterpart: create the reader with enable_checkpointing=True and register it (and any RNG) by name in an ndd.checkpoint.Checkpoint before the first next_epoch (not migrated: Pipeline(checkpoint=open(path, "rb").read() if path else None) is not a parameter of make_pipe()); line 41: pipe.checkpoint(): dynamic mode checkpoints readers and RNGs through ndd.checkpoint.Checkpoint (collect/save); pipeline checkpoints do not load there
    pipe = Pipeline(batch_size=4, num_threads=2, device_id=None, enable_checkpointing=True,
                    checkpoint=open(path, "rb").read() if path else None)
    # dali-migrate: DM219 pipe: enable_checkpointing has no pipeline-level counterpart: create the reader with enable_checkpointing=True and register it (and any RNG) by name in an ndd.checkpoint.Checkpoint before the first next_epoch (not migrated: Pipeline(checkpoint=open(path, "rb").read() if path else None) is not a parameter of make_pipe())
    with pipe:
        jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=3)
        pipe.set_outputs(jpegs, labels)
    return pipe


# dali-migrate: DM230 ckpt_pipe stays in pipeline mode with everything that uses it: line 45: checkpoint= is not migrated here: ckpt_pipe(checkpoint=...) now takes an ndd.checkpoint.Checkpoint (create one, deserialize() the saved ndd state into it, pass it); pipeline checkpoints do not load there
@pipeline_def(batch_size=4, num_threads=2, device_id=None, enable_checkpointing=True)
def ckpt_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=3)
    return jpegs, labels


# dali-migrate: DM219 LoadedPipe: enable_checkpointing has no pipeline-level counterpart: create the reader with enable_checkpointing=True and register it (and any RNG) by name in an ndd.checkpoint.Checkpoint before the first next_epoch (not migrated: Pipeline(checkpoint=open(path, "rb").read()) is not a parameter of __init__)
class LoadedPipe(Pipeline):
    """The checkpoint is read inside __init__: there is no parameter to pass an ndd checkpoint through."""

    def __init__(self, root, path):
        super().__init__(batch_size=4, num_threads=2, device_id=None, enable_checkpointing=True,
                         checkpoint=open(path, "rb").read())
        self.input = ops.readers.File(file_root=root, random_shuffle=True, seed=3)

    def define_graph(self):
        jpegs, labels = self.input()
        return labels


def save(root):
    pipe = make_pipe(root)
    pipe.build()
    pipe.run()
    # dali-migrate: DM219 pipe.checkpoint(): dynamic mode checkpoints readers and RNGs through ndd.checkpoint.Checkpoint (collect/save); pipeline checkpoints do not load there
    return pipe.checkpoint()


def resume(root, path):
    # dali-migrate: DM219 checkpoint= is not migrated here: ckpt_pipe(checkpoint=...) now takes an ndd.checkpoint.Checkpoint (create one, deserialize() the saved ndd state into it, pass it); pipeline checkpoints do not load there
    pipe = ckpt_pipe(root, checkpoint=open(path, "rb").read())
    pipe.build()
    return pipe.run()
