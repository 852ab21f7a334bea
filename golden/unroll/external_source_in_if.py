# An external_source under a Python-level `if` of the pipeline body (a pipeline argument) is set up once under it,
# as one at the top level is: where its source's kind does not show (a parameter), the generator decides it when it runs.
import numpy as np
from nvidia.dali import fn, pipeline_def


def cutouts():
    yield np.zeros((2, 2), dtype=np.float32), np.ones((2, 2), dtype=np.float32)


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def masked(root, masking=False, source=None):
    jpegs, labels = fn.readers.file(file_root=root)
    if masking:
        anchors, shapes = fn.external_source(source=source, num_outputs=2, cycle=True)
        labels = labels + anchors
    return jpegs, labels


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def masked_known(root, masking=False):
    jpegs, labels = fn.readers.file(file_root=root)
    if masking:
        anchors, shapes = fn.external_source(source=cutouts, num_outputs=2, cycle=True)
        labels = labels + anchors
    return jpegs, labels
