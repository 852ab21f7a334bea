"""Pipeline subclasses as training code often writes them: a base class forwards its callers' options with
super().__init__(*args, **kwargs) and reads them back from self; subclasses create their readers in __init__ (one
or another by a condition) and read them in a helper method that define_graph calls (load(), load_data()). Each
pipeline runs a little past one epoch."""

import argparse

import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class BasePipeline(Pipeline):
    def __init__(self, root, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.root = root
        self.reader_seed = self.seed + 1  # the options, read back once the base class set them
        self.per_shard = self.max_batch_size * 2

    def describe(self):
        return f"batch {self.max_batch_size}, threads {self.num_threads}, seed {self.seed}"


class ImagePipeline(BasePipeline):
    def __init__(self, root, shuffle, *args, **kwargs):
        super(ImagePipeline, self).__init__(root, *args, **kwargs)
        if shuffle:
            self.input = ops.readers.File(file_root=root, random_shuffle=True, seed=self.reader_seed)
        else:
            self.input = ops.readers.File(file_root=root)
        self.decode = ops.decoders.Image(device="mixed", output_type=types.RGB)
        self.resize = ops.Resize(device="gpu", resize_x=16, resize_y=12)

    def load_data(self):
        """Read and decode one batch."""
        jpegs, labels = self.input(name="Reader")
        images = self.decode(jpegs)
        return self.resize(images), labels

    def define_graph(self):
        images, labels = self.load_data()
        flipped = fn.flip(images, horizontal=1)
        return flipped, labels + 10


class ListPipeline(BasePipeline):
    def __init__(self, root, file_list, *args, **kwargs):
        super().__init__(root, *args, **kwargs)
        self.reader = ops.readers.File(file_root=root, file_list=file_list, pad_last_batch=True)

    def load(self):
        return self.reader(name="Listed")

    def define_graph(self):
        jpegs, labels = self.load()
        images = fn.decoders.image(jpegs, device="mixed")
        return fn.crop(images, crop=(8, 8)), labels


class ArrayPipeline(BasePipeline):
    def __init__(self, root, scale, *args, **kwargs):
        super().__init__(root, *args, **kwargs)
        self.scale = scale
        self.arrays = ops.readers.Numpy(file_root=root, file_filter="*.npy", shard_id=1, num_shards=2)

    def load(self, offset):
        data = self.arrays(name="Arrays")
        return data * self.scale + offset

    def define_graph(self):
        scaled = self.load(1.5)
        return scaled, fn.reductions.sum(scaled)


def run(name, pipe, reader, steps):
    pipe.build()
    print(name, pipe.describe(), "epoch", pipe.epoch_size(reader))
    for step in range(steps):
        outputs = pipe.run()
        values = [output.as_cpu().as_array() if output.is_dense_tensor() else None for output in outputs]
        print(name, step, [(v.shape, round(float(v.astype("float64").mean()), 3)) for v in values if v is not None])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("images")
    parser.add_argument("numpy")
    parser.add_argument("filelist")
    args = parser.parse_args()
    run("plain", ImagePipeline(args.images, False, 4, 2, device_id=0, seed=11), "Reader", 4)
    run("shuffled", ImagePipeline(args.images, True, batch_size=3, num_threads=2, device_id=0, seed=5), "Reader", 5)
    run("listed", ListPipeline(args.images, args.filelist, batch_size=4, num_threads=1, device_id=0, seed=3), "Listed",
        4)
    run("arrays", ArrayPipeline(args.numpy, 0.5, 2, 1, device_id=0, seed=2), "Arrays", 3)


if __name__ == "__main__":
    main()
