import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


def augmented(root, batch_size):
    # Random ops made before the pipeline and used only inside `with pipe:` are part of its graph:
    # one value per sample, drawn again at every run().
    angle = fn.random.uniform(range=(-20.0, 20.0))
    flip = fn.random.coin_flip(probability=0.5)
    pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None, seed=7)
    flip = fn.random.coin_flip(probability=0.25)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=root, name="reader")
        images = fn.decoders.image(jpegs, output_type=types.RGB)
        images = fn.rotate(images, angle=angle)
        images = fn.flip(images, horizontal=flip)
        pipe.set_outputs(images, labels)
    return pipe


def also_read_outside(root, batch_size):
    # `scale` is read after the pipeline too: it stays where it is (and is marked).
    scale = fn.random.uniform(range=(0.5, 1.5))
    pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=root)
        images = fn.decoders.image(jpegs)
        pipe.set_outputs(images * scale, labels)
    return pipe, scale


def argument_rebound(root, batch_size, low):
    # `low` changes between the random op and the pipeline: moving the op would read the new value.
    shift = fn.random.uniform(range=(low, 2.0))
    low = 1.0
    pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=root)
        images = fn.decoders.image(jpegs)
        pipe.set_outputs(images + shift, labels)
    return pipe
