"""Readers and sources a pipeline body creates under plain Python conditions (decided when the graph is
defined), and conditions that are not (left marked)."""
from nvidia.dali import Pipeline, fn, pipeline_def, types


@pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=3)
def segmentation(image_root, mask_files, with_masks):
    jpegs, labels = fn.readers.file(file_root=image_root, random_shuffle=True)
    if with_masks:
        masks, _ = fn.readers.file(files=mask_files, seed=5)
        masks = fn.decoders.image(masks, device="mixed")
    else:
        masks = fn.zeros(shape=[1], dtype=types.UINT8)
    images = fn.decoders.image(jpegs, device="mixed")
    return images, masks, labels


def make_pipeline(cfg, root):
    @pipeline_def(batch_size=cfg.batch, num_threads=2, device_id=None)
    def train():
        if cfg.from_memory:
            data = fn.external_source(source=cfg.batches, dtype=types.FLOAT)
        elif not cfg.eval:
            data = fn.readers.numpy(file_root=root, random_shuffle=True, seed=cfg.seed, name="Train")
        else:
            data = fn.readers.numpy(file_root=root, name="Eval")
        return data * 2.0,

    return train()


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def relabeled(root, extra):
    jpegs, labels = fn.readers.file(file_root=root)
    if extra:
        extra_jpegs, extra_labels = fn.readers.file(files=extra)
    extra = None  # assigned again: the generator's `if` would read this value each step
    return jpegs, labels


pipe = segmentation("images/", ["m0.png", "m1.png"], True)
pipe.build()
images, masks, labels = pipe.run()

train = make_pipeline(config, "arrays/")
train.build()
print(train.epoch_size("Train"))


class Loader:
    def __init__(self, root, training):
        self.training = training
        self.pipe = Pipeline(batch_size=2, num_threads=1, device_id=None)
        with self.pipe:
            if self.training:
                jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=1)
            else:
                jpegs, labels = fn.readers.file(file_root=root)
            self.pipe.set_outputs(fn.decoders.image(jpegs), labels)
        self.pipe.build()

    def labels(self):
        images, labels = self.pipe.run()
        return labels.as_array()
