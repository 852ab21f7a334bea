# An external_source under a Python-level `if` of the pipeline body (a pipeline argument) is set up once under it,
# as one at the top level is: where its source's kind does not show (a parameter), the generator decides it when it runs.
import numpy as np
import inspect
import nvidia.dali.experimental.dynamic as ndd


def cutouts():
    yield np.zeros((2, 2), dtype=np.float32), np.ones((2, 2), dtype=np.float32)


def masked(root, masking=False, source=None, *, batch_size=2):
    reader = ndd.readers.File(file_root=root)
    if masking:
        source_2 = source
        source_2_again = source_2 if inspect.isgeneratorfunction(source_2) else lambda: source_2
        source_2_next = iter(source_2_again()).__next__
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            if masking:
                try:
                    anchors, shapes = source_2_next()
                except StopIteration:  # cycle=True: read again from the start at once, as pipeline mode did
                    source_2_next = iter(source_2_again()).__next__
                    anchors, shapes = source_2_next()
                anchors = ndd.as_batch(anchors)
                shapes = ndd.as_batch(shapes)
                labels = labels + anchors
            yield jpegs, labels


def masked_known(root, masking=False, *, batch_size=2):
    reader = ndd.readers.File(file_root=root)
    if masking:
        source = cutouts()
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            if masking:
                try:
                    anchors, shapes = next(source)
                except StopIteration:  # cycle=True: read again from the start at once, as pipeline mode did
                    source = cutouts()
                    anchors, shapes = next(source)
                anchors = ndd.as_batch(anchors)
                shapes = ndd.as_batch(shapes)
                labels = labels + anchors
            yield jpegs, labels
