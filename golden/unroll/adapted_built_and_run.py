# A helper that builds and runs the pipeline it is handed, with no caller in the module: its parameter is adapted
# at run time (ReaderStream.adapt), so the module's migrated pipelines and nvidia.dali Pipelines both work.
# A value only built, or only run, is not taken for a pipeline (either name alone is too common).
import numpy as np
from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=4, num_threads=2, device_id=None)
def files_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return fn.decoders.image(jpegs), labels


def dali_run(pipe, device):
    """The first output of one step, as an array."""
    pipe.build()
    outs = pipe.run()
    return np.array(outs[0].as_cpu().at(0)) if device == "gpu" else outs[0].as_array()


def only_built(model):
    model.build()
    return model


def only_run(job):
    return job.run()
