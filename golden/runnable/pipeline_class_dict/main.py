"""Pipeline classes as the keys of a dict of data sets: the dict is filled and extended by class
(``sets[Cls].append(...)``), emptied by key, and iterated with ``.keys()``; ``len(sets[cls])`` counts the data
sets. The base class picks a different operator for one attribute in each branch of an if/elif/else."""

import argparse

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class BasePipe(Pipeline):
    def __init__(self, paths, batch_size, num_threads, device_id, mode, size):
        super(BasePipe, self).__init__(batch_size, num_threads, device_id, prefetch_queue_depth=2)
        self.decode = ops.decoders.Image(device="mixed", output_type=types.RGB)
        if mode == "crop":
            self.shape = ops.Crop(device="gpu", crop=(size, size))
        elif mode == "resize":
            self.shape = ops.Resize(device="gpu", resize_x=size, resize_y=size)
        else:
            self.shape = ops.Resize(device="gpu", resize_shorter=size)
        self.norm = ops.CropMirrorNormalize(device="gpu", dtype=types.FLOAT, crop=(size, size),
                                            mean=[100.0, 100.0, 100.0], std=[50.0, 50.0, 50.0])

    def finish(self, jpegs, labels):
        images = self.shape(self.decode(jpegs))
        return self.norm(images), labels


class RootPipe(BasePipe):
    def __init__(self, **kwargs):
        super(RootPipe, self).__init__(**kwargs)
        self.input = ops.readers.File(file_root=kwargs["paths"][0])

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return self.finish(jpegs, labels)


class ListPipe(BasePipe):
    def __init__(self, **kwargs):
        super(ListPipe, self).__init__(**kwargs)
        self.input = ops.readers.File(file_root=kwargs["paths"][0], file_list=kwargs["paths"][1])

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return self.finish(jpegs, labels)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("images")
    parser.add_argument("filelist")
    parser.add_argument("--drop-defaults", action="store_true")
    args = parser.parse_args()
    sets = {RootPipe: [[args.images]], ListPipe: [[args.images, args.filelist]]}
    if args.drop_defaults:
        for cls in sets.keys():
            sets[cls] = []
    sets[RootPipe].append([args.images])
    for cls in sets.keys():
        count = len(sets[cls])
        for i, paths in enumerate(sets[cls]):
            for mode in ("crop", "resize", "shorter"):
                pipe = cls(paths=paths, batch_size=3, num_threads=2, device_id=0, mode=mode, size=8 + i)
                pipe.build()
                samples = pipe.epoch_size("Reader")
                print(cls.__name__, f"{i + 1}/{count}", mode, "samples", samples)
                for step in range(4):
                    images, labels = pipe.run()
                    array = images.as_cpu().as_array()
                    print(step, array.shape, round(float(array.mean()), 4), labels.as_array().ravel().tolist())


if __name__ == "__main__":
    main()
