"""Two readers made by one helper method of a Pipeline subclass, read in one statement; and a made reader
called inside an expression (left marked)."""
from nvidia.dali import fn, ops, types
from nvidia.dali.pipeline import Pipeline


class SegPipe(Pipeline):
    def __init__(self, batch_size, imgs, lbls, seed):
        super().__init__(batch_size, 2, None, seed=seed)
        self.input_x = self.get_reader(imgs)
        self.input_y = self.get_reader(lbls)

    def get_reader(self, data):
        return ops.readers.Numpy(files=data, shard_id=0, num_shards=1, seed=self.seed, shuffle_after_epoch=True)

    def define_graph(self):
        img, lbl = self.input_x(name="ReaderX"), self.input_y(name="ReaderY")
        return img, lbl * 2.0


pipe = SegPipe(2, ["a.npy"], ["b.npy"], 3)
pipe.build()
print(pipe.epoch_size("ReaderX"))
img, lbl = pipe.run()


class Refused(Pipeline):
    def __init__(self, batch_size, files):
        super().__init__(batch_size, 2, None)
        self.input = self.make(files)

    def make(self, files):
        return ops.readers.Numpy(files=files)

    def define_graph(self):
        return self.input(name="Reader") + 1.0


refused = Refused(2, ["c.npy"])
refused.build()
(arrays,) = refused.run()
