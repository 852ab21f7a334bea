# A helper that builds and runs the pipeline it is handed, with no caller in the module: its parameter is adapted
# at run time (ReaderStream.adapt), so the module's migrated pipelines and nvidia.dali Pipelines both work.
# A value only built, or only run, is not taken for a pipeline (either name alone is too common).
import numpy as np
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


@Prefetch(depth=2)
def files_pipe(root, *, batch_size=4):
    reader = ndd.readers.File(file_root=root, name="Reader")
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield ndd.decoders.image(jpegs), labels


def dali_run(pipe, device):
    """The first output of one step, as an array."""
    pipe = ReaderStream.adapt(pipe)  # nvidia.dali Pipelines or migrated ones: one interface
    outs = next(pipe)
    return np.array(outs[0].cpu().select(0)) if device == "gpu" else np.array(ndd.as_tensor(outs[0]))


def only_built(model):
    model.build()
    return model


def only_run(job):
    return job.run()
