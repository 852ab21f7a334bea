"""Test helpers: describe a pipeline's outputs with the TensorList API (shape(), layout(), at())."""
import numpy as np


def _describe(batch):
    shapes = sorted({tuple(shape) for shape in batch.shape()})
    return shapes, batch.layout(), round(float(np.array(batch.at(0)).mean()), 4)


def summarize(outputs, names):
    if not isinstance(outputs, tuple):
        outputs = (outputs,)
    for index, (name, batch) in enumerate(zip(names, outputs, strict=True)):
        print(index, name, *_describe(batch))
