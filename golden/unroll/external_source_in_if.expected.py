# An external_source under a Python-level `if` in the pipeline body: kept, with a marker that says where it is.
import numpy as np
from nvidia.dali import fn, pipeline_def


def cutouts():
    yield np.zeros((2, 2), dtype=np.float32), np.ones((2, 2), dtype=np.float32)


# dali-migrate: DM220 masked stays in pipeline mode: external_source inside an `if` block of the pipeline body: dali-migrate migrates an external_source assigned at the body's top level only
@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def masked(root, masking=False, source=None):
    jpegs, labels = fn.readers.file(file_root=root)
    if masking:
        anchors, shapes = fn.external_source(source=source, num_outputs=2, cycle=True)
        labels = labels + anchors
    return jpegs, labels
