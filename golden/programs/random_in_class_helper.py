"""Input-less random ops nested in a graph helper call, in a Pipeline helper method and a helper function."""
from nvidia.dali import fn, ops, pipeline_def, types
from nvidia.dali.pipeline import Pipeline


def random_augmentation(probability, augmented, original):
    condition = fn.cast(fn.random.coin_flip(probability=probability), dtype=types.BOOL)
    neg_condition = condition ^ True
    return condition * augmented + neg_condition * original


def noise(img):
    scale = random_augmentation(0.3, fn.random.uniform(range=(0.0, 0.3)), 0.0)
    return img + fn.random.normal(img) * scale


class TrainPipe(Pipeline):
    def __init__(self, batch_size, root):
        super().__init__(batch_size, 2, None, seed=5)
        self.input = ops.readers.Numpy(file_root=root)

    def brightness(self, img):
        scale = random_augmentation(0.15, fn.random.uniform(range=(0.7, 1.3)), 1.0)
        return img * scale

    def define_graph(self):
        img = self.input(name="Reader")
        img = self.brightness(img)
        return noise(img)


pipe = TrainPipe(4, "arr")
pipe.build()
(out,) = pipe.run()
