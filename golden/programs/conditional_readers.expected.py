"""Readers and sources a pipeline body creates under plain Python conditions (decided when the graph is
defined), and conditions that are not (left marked)."""
import contextlib
import inspect
import numpy as np
from nvidia.dali import fn, pipeline_def, types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


def segmentation(image_root, mask_files, with_masks, *, batch_size=4, seed=3):
    def endless(reader):  # one reader's batches, epoch after epoch, as pipe.run() read them
        while True:
            yield from reader.next_epoch(batch_size=batch_size)

    if with_masks:
        reader_2 = ndd.readers.File(files=mask_files, seed=5)
        batches_2 = endless(reader_2)
    reader = ndd.readers.File(file_root=image_root, random_shuffle=True, seed=seed)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            if with_masks:
                masks, _ = next(batches_2)
                masks = ndd.decoders.image(masks, device="gpu")
            else:
                masks = ndd.zeros(shape=[1], dtype=types.UINT8, batch_size=batch_size)
            images = ndd.decoders.image(jpegs, device="gpu")
            yield images, masks, labels


def make_pipeline(cfg, root):
    def train(*, batch_size=cfg.batch, num_threads=2, device_id=None, seed=None):
        def endless(reader):  # one reader's batches, epoch after epoch, as pipe.run() read them
            while True:
                yield from reader.next_epoch(batch_size=batch_size)

        if cfg.from_memory:
            pass
        elif not cfg.eval:
            reader = ndd.readers.Numpy(file_root=root, random_shuffle=True, seed=cfg.seed, name="Train", max_batch_size=batch_size)
            batches = endless(reader)
        else:
            reader_2 = ndd.readers.Numpy(file_root=root, name="Eval", max_batch_size=batch_size)
            batches_2 = endless(reader_2)

        def steps():
            with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
                if num_threads is not None and num_threads > ndd.get_num_threads():
                    ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
                if cfg.from_memory:
                    source = cfg.batches
                    source = source() if inspect.isgeneratorfunction(source) else source
                    source_next = iter(source).__next__ if hasattr(source, '__iter__') else None
                    source_takes_info = source_next is None and len(inspect.signature(source).parameters) > 0
                    source_step = 0  # the iteration in the epoch, as pipeline mode counted it
                while True:
                    if cfg.from_memory:
                        try:
                            data = source_next() if source_next else source(source_step) if source_takes_info else source()
                        except StopIteration:
                            return  # the source is exhausted: pipe.run() raised StopIteration from here on
                        source_step += 1
                        data = ndd.as_batch(data, dtype=types.FLOAT)
                    elif not cfg.eval:
                        (data,) = next(batches)
                    else:
                        (data,) = next(batches_2)
                    yield (data * 2.0,)

        return ReaderStream(steps(), {**({"Train": reader} if not cfg.from_memory and not cfg.eval else {}), **({"Eval": reader_2} if not cfg.from_memory and cfg.eval else {})}, batch_size)

    return train()


# dali-migrate: DM212 relabeled stays in pipeline mode: a reader under `if extra`, whose extra the pipeline body assigns again
@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def relabeled(root, extra):
    jpegs, labels = fn.readers.file(file_root=root)
    if extra:
        extra_jpegs, extra_labels = fn.readers.file(files=extra)
    extra = None  # assigned again: the generator's `if` would read this value each step
    return jpegs, labels


pipe = segmentation("images/", ["m0.png", "m1.png"], True)
images, masks, labels = next(pipe)

train = make_pipeline(config, "arrays/")
print(train.epoch_size("Train"))


class Loader:
    def __init__(self, root, training):
        self.training = training
        @Prefetch(depth=2)
        def pipe_steps(*, batch_size=2):
            def endless(reader):  # one reader's batches, epoch after epoch, as pipe.run() read them
                while True:
                    yield from reader.next_epoch(batch_size=batch_size)

            if self.training:
                reader = ndd.readers.File(file_root=root, random_shuffle=True, seed=1)
                batches = endless(reader)
            else:
                reader_2 = ndd.readers.File(file_root=root)
                batches_2 = endless(reader_2)
            while True:
                if self.training:
                    jpegs, labels = next(batches)
                else:
                    jpegs, labels = next(batches_2)
                yield ndd.decoders.image(jpegs), labels
        self.pipe = pipe_steps()

    def labels(self):
        images, labels = next(self.pipe)
        return np.array(ndd.as_tensor(labels))
