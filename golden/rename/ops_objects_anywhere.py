"""Legacy ops objects made outside the pipeline's definition and called in it: in a plain augmentation class's
__init__, at module level, in a list and a dict, returned by a factory. Each becomes a callable of its ndd op that
keeps its constructor's arguments; an input-less random one gets batch_size= where it is called (the steps' batch
size, or the batch size of the helper's data)."""

from nvidia.dali import fn, ops, pipeline_def, types

resize = ops.Resize(resize_x=64, resize_y=64, name="resize")
shifts = [ops.Flip(horizontal=1), ops.Flip(vertical=1)]
casts = {"float": ops.Cast(dtype=types.FLOAT), "half": ops.Cast(dtype=types.FLOAT16)}
jitter = ops.random.Uniform(range=(0.9, 1.1))


def rotation(angle):
    return ops.Rotate(angle=angle, keep_size=True)


class Augment:
    def __init__(self, probability):
        self.coin = ops.random.CoinFlip(probability=probability)
        self.flip = ops.Flip()
        self.turn = rotation(90)

    def __call__(self, images):
        return self.turn(self.flip(images, horizontal=self.coin()))


augment = Augment(0.5)


@pipeline_def(batch_size=8, num_threads=2, device_id=0, seed=3)
def train(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = resize(fn.decoders.image(jpegs))
    for shift in shifts:
        images = shift(images)
    scale = jitter()
    return casts["float"](augment(images)) * scale, labels
