# An external_source under a Python-level `if` of the pipeline body (a pipeline argument) is set up once under it,
# as one at the top level is: kept and marked where its source's kind does not show, migrated where it does.
import numpy as np
from nvidia.dali import fn, pipeline_def
import nvidia.dali.experimental.dynamic as ndd


def cutouts():
    yield np.zeros((2, 2), dtype=np.float32), np.ones((2, 2), dtype=np.float32)


# dali-migrate: DM230 masked stays in pipeline mode with everything that uses it: line 15: what source=source is (generator, iterable or callable) is not visible here: ndd.ExternalSource stacks a returned list into one array, so samples of different shapes fail; make the source return ndd.as_batch(list) then
@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def masked(root, masking=False, source=None):
    jpegs, labels = fn.readers.file(file_root=root)
    if masking:
        # dali-migrate: DM220 what source=source is (generator, iterable or callable) is not visible here: ndd.ExternalSource stacks a returned list into one array, so samples of different shapes fail; make the source return ndd.as_batch(list) then
        anchors, shapes = fn.external_source(source=source, num_outputs=2, cycle=True)
        labels = labels + anchors
    return jpegs, labels


def masked_known(root, masking=False, *, batch_size=2):
    reader = ndd.readers.File(file_root=root)
    if masking:
        source = cutouts()
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            if masking:
                try:
                    anchors, shapes = next(source)
                except StopIteration:
                    return  # the source is exhausted: pipe.run() raised StopIteration from here on
                anchors = ndd.as_batch(anchors)
                shapes = ndd.as_batch(shapes)
                labels = labels + anchors
            yield jpegs, labels
