"""A Pipeline subclass with ops objects under their current names; an op built conditionally in
__init__; a per-op seed on a random op."""

from nvidia.dali import ops, types
from nvidia.dali.pipeline import Pipeline


class TrainPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir, crop, dali_cpu=False):
        super().__init__(batch_size, num_threads, device_id, seed=12, prefetch_queue_depth=2)
        self.input = ops.readers.File(file_root=data_dir, random_shuffle=True, seed=1234,
                                      pad_last_batch=True)
        if dali_cpu:
            self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        else:
            self.decode = ops.decoders.Image(device="mixed", output_type=types.RGB)
        self.res = ops.Resize(device="gpu", resize_x=crop, resize_y=crop)
        self.cmn = ops.CropMirrorNormalize(device="gpu", dtype=types.FLOAT, output_layout="CHW",
                                           mean=[128.0, 128.0, 128.0], std=[64.0, 64.0, 64.0])
        self.coin = ops.random.CoinFlip(probability=0.5, seed=99)

    def define_graph(self):
        self.jpegs, self.labels = self.input(name="Reader")
        images = self.res(self.decode(self.jpegs))
        mirror = self.coin()
        return self.cmn(images), self.labels, self.cmn(images, mirror=mirror), mirror


def collect(data_dir, steps):
    pipe = TrainPipe(4, 2, device_id=0, data_dir=data_dir, crop=24, dali_cpu=True)
    pipe.build()
    return [pipe.run() for _ in range(steps)]
