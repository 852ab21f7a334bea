import nvidia.dali.experimental.dynamic as ndd


def augment(images):
    images = ndd.decoders.image(images)
    images = ndd.resize(images, resize_x=64)
    return ndd.math.clamp(images, 0, 255)


def read(root, *, batch_size, seed=None):
    reader = ndd.readers.File(file_root=root)
    while True:
        for outputs in reader.next_epoch(batch_size=batch_size):
            yield outputs


class Holder:
    def resize(self, resize=1):  # not DALI: untouched
        return self.resize
