"""Operators over lists of one or two DataNodes, and pipelines that return a name holding several outputs."""

import os
import sys

import numpy as np
from nvidia.dali import Pipeline, fn, ops, pipeline_def, types


def npy_bytes(root):
    """Each .npy file's bytes, one sample per call, in a one-element tuple (num_outputs=1), forever."""
    files = sorted(os.path.join(root, name) for name in os.listdir(root) if name.endswith(".npy"))
    while True:
        for path in files:
            with open(path, "rb") as f:
                yield (np.frombuffer(f.read(), dtype=np.uint8),)


def pairs():
    step = 0
    while True:
        yield [np.full((2,), step + k, np.float32) for k in range(2)], [np.full((3,), -step, np.float32)] * 2
        step += 1


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def decoded(root, with_pair):
    encoded = fn.external_source(source=npy_bytes(root), num_outputs=1, batch=False, dtype=types.UINT8)
    arrays = fn.decoders.numpy(encoded)
    halves = fn.cast([arrays * 0.5], dtype=types.FLOAT16)
    pair = fn.external_source(source=pairs, num_outputs=2)
    rounded = fn.cast(pair, dtype=types.INT32)
    result = (arrays, halves) + tuple(rounded) if with_pair else (arrays, halves)
    return result


class FilePairs(Pipeline):
    def __init__(self, root):
        super().__init__(batch_size=2, num_threads=1, device_id=None)
        self.input = ops.readers.File(file_root=root)

    def define_graph(self):
        output = self.input(name="Reader")
        return output


class Decoded(Pipeline):
    def __init__(self, root):
        super().__init__(batch_size=2, num_threads=1, device_id=None)
        self.input = ops.readers.File(file_root=root)
        self.decode = ops.decoders.Image()

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        outputs = [self.decode(jpegs), labels]
        return outputs


def show(name, outputs):
    parts = []
    for out in outputs:
        first = np.array(out.at(0))
        parts.append(f"{first.shape} {first.dtype} {float(np.sum(first.astype(np.float64))):.3f}")
    print(f"{name}: {len(outputs)} outputs: " + " | ".join(parts))


if __name__ == "__main__":
    numpy_root, images = sys.argv[1], sys.argv[2]
    for with_pair in (True, False):
        pipe = decoded(numpy_root, with_pair)
        pipe.build()
        for step in range(3):
            show(f"decoded with_pair={with_pair} step {step}", pipe.run())
    for cls in (FilePairs, Decoded):
        pipe = cls(images)
        pipe.build()
        for step in range(2):
            show(f"{cls.__name__} step {step}", pipe.run())
