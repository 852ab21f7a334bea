"""Two user classes around a pipeline: one with __iter__/__next__, one whose __iter__ is a generator."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def gray_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    return fn.resize(images, resize_x=5, resize_y=5), labels


class BatchIterator:
    """Yields (images, labels) numpy pairs, `steps` times."""

    def __init__(self, pipe, steps):
        self.pipe = pipe
        self.steps = steps
        self.count = 0
        self.pipe.build()

    def __iter__(self):
        self.count = 0
        return self

    def __next__(self):
        if self.count >= self.steps:
            raise StopIteration
        self.count += 1
        images, labels = self.pipe.run()
        return images.as_array(), labels.as_array().ravel()


class Stream:
    def __init__(self, pipe):
        self.pipe = pipe
        pipe.build()

    def __iter__(self):
        while True:
            (images, labels) = self.pipe.run()
            yield [images.at(i) for i in range(len(images))], labels


if __name__ == "__main__":
    it = BatchIterator(gray_pipe(sys.argv[1]), steps=3)
    images, labels = next(it)
    print("first", images.shape, labels.tolist())
    for images, labels in it:
        print("loop", images.shape, int(images.sum()), labels.tolist())
    stream = iter(Stream(gray_pipe(sys.argv[1])))
    for _ in range(2):
        samples, labels = next(stream)
        print("stream", [s.shape for s in samples], len(labels))
