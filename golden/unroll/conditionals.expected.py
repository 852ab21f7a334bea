"""Per-sample conditionals (enable_conditionals=True): each `if` on pipeline data splits the batch, runs each
branch on its samples and merges the values the branches assign, in sample order."""

import contextlib
from nvidia.dali import types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, SampleSplit  # written by dali-migrate (migrate --write recreates it)


@Prefetch(depth=2)
def flips(root, *, batch_size=4, num_threads=2, device_id=0, seed=None):
    with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
        if num_threads is not None and num_threads > ndd.get_num_threads():
            ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        reader = ndd.readers.File(file_root=root)
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                images = ndd.decoders.image(jpegs, device="gpu")
                # mirror the first class, turn the others upside down
                split = SampleSplit(labels.slice[0] == 1)  # per-sample if: each branch runs on its samples
                images_then = images_else = None
                if split.then:
                    images_then = split.then_part(images)
                    images_then = ndd.flip(images_then, horizontal=1)
                if split.orelse:
                    images_else = split.else_part(images)
                    images_else = ndd.flip(images_else, vertical=1)
                images = split.merge(images_then, images_else)
                yield images, labels


@Prefetch(depth=2)
def chains(root, *, batch_size=4, num_threads=2, device_id=0, seed=12):
    with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
        if num_threads is not None and num_threads > ndd.get_num_threads():
            ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        ndd.random.set_seed(seed)
        reader = ndd.readers.File(file_root=root)
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                images = ndd.decoders.image(jpegs)
                brightness = ndd.reductions.mean(images)
                split = SampleSplit((brightness > 100) & (labels.slice[0] != 0))  # per-sample if: each branch runs on its samples
                images_then = images_else = None
                if split.then:
                    images_then = split.then_part(images)
                    images_then = ndd.resize(images_then, size=[8, 8])
                    angle_then = ndd.random.uniform(range=[-10, 10], batch_size=len(split.then))
                    images_then = ndd.rotate(images_then, angle=angle_then, keep_size=True)
                if split.orelse:
                    brightness_else = split.else_part(brightness)
                    labels_else = split.else_part(labels)
                    images_else = split.else_part(images)
                    split_else = SampleSplit((brightness_else > 50) | (labels_else.slice[0] == 2))  # per-sample if: each branch runs on its samples
                    images_else_then = images_else_else = None
                    if split_else.then:
                        labels_else_then = split_else.then_part(labels_else)
                        images_else_then = split_else.then_part(images_else)
                        split_else_then = SampleSplit(labels_else_then.slice[0] == 1)  # per-sample if: each branch runs on its samples
                        images_else_then_then = images_else_then_else = None
                        if split_else_then.then:
                            images_else_then_then = split_else_then.then_part(images_else_then)
                            images_else_then_then = ndd.resize(images_else_then_then, size=[8, 8])
                        if split_else_then.orelse:
                            images_else_then_else = split_else_then.else_part(images_else_then)
                            images_else_then_else = ndd.resize(images_else_then_else, size=[8, 8], interp_type=types.INTERP_NN)
                        images_else_then = split_else_then.merge(images_else_then_then, images_else_then_else)
                    if split_else.orelse:
                        images_else_else = split_else.else_part(images_else)
                        images_else_else = ndd.crop(images_else_else, crop=[8, 8])
                    images_else = split_else.merge(images_else_then, images_else_else)
                images = split.merge(images_then, images_else)
                dark = (brightness > 100) == 0
                split = SampleSplit(dark)  # per-sample if: each branch runs on its samples
                images_then = images_else = None
                if split.then:
                    images_then = split.then_part(images)
                    images_then = images_then * 0.5
                if split.orelse:
                    images_else = split.else_part(images)
                images = split.merge(images_then, images_else)
                yield images, labels, dark


def run(root):
    outputs = []
    for make in (flips, chains):
        pipe = make(root)
        outputs.append(next(pipe))
    return outputs
