"""A Pipeline subclass with no define_graph, used as a plain Pipeline: its __init__ forwards the pipeline options
and keeps a sample source of its own, it answers epoch_size() itself, and factories fill its instances with
`with pipe:`, reading the source from the instance. A plain `with` pipeline over a file reader sits beside it."""

import sys

import numpy as np
from nvidia.dali import fn, types
from nvidia.dali.pipeline import Pipeline


class Samples:
    """Per-sample source: a small ramp and its index, 7 samples an epoch."""

    def __init__(self, count):
        self.count = count

    def __call__(self, info):
        if info.idx_in_epoch >= self.count:
            raise StopIteration
        ramp = np.arange(6, dtype=np.float32).reshape(2, 3) + info.idx_in_epoch
        return ramp, np.array([info.idx_in_epoch], dtype=np.int32)


class SourcePipeline(Pipeline):
    def __init__(self, count, **kwargs):
        super().__init__(**kwargs)
        self.samples = Samples(count)

    def epoch_size(self, *args, **kwargs):
        return self.samples.count


def scaled(data):
    return fn.cast(data * 2.0 + 1.0, dtype=types.FLOAT)


def source_pipeline(batch_size):
    pipe = SourcePipeline(7, batch_size=batch_size, num_threads=1, device_id=None)
    with pipe:
        ramp, index = fn.external_source(pipe.samples, batch=False, num_outputs=2)
        pipe.set_outputs(scaled(ramp), index)
    return pipe


def reader_pipeline(root, batch_size):
    pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=root, name="Reader")
        images = fn.decoders.image(jpegs)
        pipe.set_outputs(fn.resize(images, resize_x=8, resize_y=8), labels)
    return pipe


def main(root):
    pipe = source_pipeline(3)
    pipe.build()
    print("epoch size", pipe.epoch_size())
    for step in range(2):
        ramp, index = pipe.run()
        print("step", step, "ramp", np.array(ramp.as_array()).sum(), "index", index.as_array().ravel().tolist())
    files = reader_pipeline(root, 4)
    files.build()
    images, labels = files.run()
    print("images", [tuple(images.at(i).shape) for i in range(len(images))], "labels",
          labels.as_array().ravel().tolist())


if __name__ == "__main__":
    main(sys.argv[1])
