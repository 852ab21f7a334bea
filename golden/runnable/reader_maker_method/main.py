"""A Pipeline subclass that makes its two readers with a helper method returning an ops reader (images and
labels of a segmentation set, as a U-Net data module writes it), read in one statement; a subclass with one
reader made the same way, given keyword arguments."""
import argparse
import glob
import os

from nvidia.dali import ops
from nvidia.dali.pipeline import Pipeline


class PairPipeline(Pipeline):
    def __init__(self, batch_size, images, labels, seed, shuffle):
        super().__init__(batch_size, 2, None, seed=seed)
        self.shuffle = shuffle
        self.input_x = self.get_reader(images)
        self.input_y = self.get_reader(labels)

    def get_reader(self, files):
        return ops.readers.Numpy(files=files, shard_id=0, num_shards=1, seed=self.seed,
                                 shuffle_after_epoch=self.shuffle, pad_last_batch=True)

    def define_graph(self):
        image, label = self.input_x(name="ReaderX"), self.input_y(name="ReaderY")
        return image, label * 0.5


class SinglePipeline(Pipeline):
    def __init__(self, batch_size, files):
        super().__init__(batch_size, 2, None)
        self.input = self.reader_for(files=files, shuffle=False)

    def reader_for(self, files, shuffle=True):
        """The reader over `files`."""
        return ops.readers.Numpy(files=files, random_shuffle=shuffle, seed=7)

    def define_graph(self):
        arrays = self.input(name="Reader")
        return arrays + 1.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("arrays")
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args()
    files = sorted(glob.glob(os.path.join(args.arrays, "*.npy")))
    for shuffle in (False, True):
        pipe = PairPipeline(4, files, files[::-1][:5], seed=9, shuffle=shuffle)
        pipe.build()
        print("pair", shuffle, pipe.epoch_size("ReaderX"), pipe.epoch_size("ReaderY"))
        for step in range(args.steps):
            image, label = (out.as_array() for out in pipe.run())
            print(step, image.sum(axis=(1, 2)).tolist(), label.sum(axis=(1, 2)).tolist())
    pipe = SinglePipeline(3, files[:4])
    pipe.build()
    print("single", pipe.epoch_size("Reader"), [pipe.run()[0].as_array().sum(axis=(1, 2)).tolist()
                                                 for _ in range(args.steps)])


if __name__ == "__main__":
    main()
