"""RotateFlipPipe, dynamic mode (hand-migrated): a plain class whose __iter__ yields one tuple per run()."""

import nvidia.dali.experimental.dynamic as ndd
import nvidia.dali.types as types


class RotateFlipPipe:
    def __init__(self, root, batch_size=4, num_threads=2, device_id=None, seed=11):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.seed = seed
        self.reader = ndd.readers.File(file_root=root, random_shuffle=True, seed=3)

    def __iter__(self):
        ndd.set_num_threads(self.num_threads)
        if self.seed is not None:
            ndd.random.set_seed(self.seed)
        bs = self.batch_size
        while True:
            for jpegs, labels in self.reader.next_epoch(batch_size=bs):
                images = ndd.decoders.image(jpegs, device="cpu", output_type=types.RGB)
                angle = ndd.random.uniform(range=(-30.0, 30.0), batch_size=bs)
                images = ndd.rotate(images, angle=angle, fill_value=0, size=(32, 32))
                flags = ndd.random.coin_flip(probability=0.5, batch_size=bs)
                images = ndd.flip(images, horizontal=flags)
                yield images, labels, flags
