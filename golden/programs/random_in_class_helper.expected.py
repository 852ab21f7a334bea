"""Input-less random ops nested in a graph helper call, in a Pipeline helper method and a helper function."""
from nvidia.dali import types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import ReaderStream  # written by dali-migrate (migrate --write recreates it)


def random_augmentation(probability, augmented, original):
    condition = ndd.cast(ndd.random.coin_flip(probability=probability, batch_size=augmented.batch_size), dtype=types.BOOL)
    neg_condition = condition ^ True
    return condition * augmented + neg_condition * original


def noise(img):
    scale = random_augmentation(0.3, ndd.random.uniform(range=(0.0, 0.3), batch_size=img.batch_size), 0.0)
    return img + ndd.random.normal(img) * scale


class TrainPipe(ReaderStream):
    def __init__(self, batch_size, root):
        self.batch_size = batch_size
        self.num_threads = 2
        self.device_id = None
        self.seed = 5
        self.input = ndd.readers.Numpy(file_root=root, name="Reader", max_batch_size=self.batch_size)
        self._readers = {"Reader": self.input}

    def brightness(self, img):
        scale = random_augmentation(0.15, ndd.random.uniform(range=(0.7, 1.3), batch_size=img.batch_size), 1.0)
        return img * scale

    def steps(self):
        if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
            ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        ndd.random.set_seed(self.seed)
        while True:
            for (img,) in self.input.next_epoch(batch_size=self.batch_size):
                img = self.brightness(img)
                outputs = noise(img)
                yield tuple(outputs) if isinstance(outputs, (tuple, list)) else (outputs,)


pipe = TrainPipe(4, "arr")
(out,) = next(pipe)
