import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


def augmented(root, batch_size):
    @Prefetch(depth=2)
    def pipe_steps(*, batch_size=batch_size, seed=7):
        ndd.random.set_seed(seed)
        reader = ndd.readers.File(file_root=root, name="reader")
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                # Random ops made before the pipeline and used only inside `with pipe:` are part of its graph:
                # one value per sample, drawn again at every run().
                angle = ndd.random.uniform(range=(-20.0, 20.0), batch_size=batch_size)
                flip = ndd.random.coin_flip(probability=0.5, batch_size=batch_size)
                flip = ndd.random.coin_flip(probability=0.25, batch_size=batch_size)
                images = ndd.decoders.image(jpegs, output_type=types.RGB)
                images = ndd.rotate(images, angle=angle)
                images = ndd.flip(images, horizontal=flip)
                yield images, labels
    pipe = pipe_steps()
    return pipe


def also_read_outside(root, batch_size):
    # `scale` is read after the pipeline too: it stays where it is (and is marked).
    # dali-migrate: DM216 ndd.random.uniform has no batch_size here: it returns one value for the whole batch, not one per sample; pass the batch size in and call it with batch_size=
    scale = fn.random.uniform(range=(0.5, 1.5))
    # dali-migrate: DM230 pipe stays in pipeline mode with everything that uses it: line 24: ndd.random.uniform has no batch_size here: it returns one value for the whole batch, not one per sample; pass the batch size in and call it with batch_size=
    pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
    # dali-migrate: DM230 the graph of pipe, which stays in pipeline mode with everything that uses it: line 24: ndd.random.uniform has no batch_size here: it returns one value for the whole batch, not one per sample; pass the batch size in and call it with batch_size=
    with pipe:
        jpegs, labels = fn.readers.file(file_root=root)
        images = fn.decoders.image(jpegs)
        pipe.set_outputs(images * scale, labels)
    return pipe, scale


def argument_rebound(root, batch_size, low):
    # `low` changes between the random op and the pipeline: moving the op would read the new value.
    # dali-migrate: DM216 ndd.random.uniform has no batch_size here: it returns one value for the whole batch, not one per sample; pass the batch size in and call it with batch_size=
    shift = fn.random.uniform(range=(low, 2.0))
    low = 1.0
    # dali-migrate: DM230 pipe stays in pipeline mode with everything that uses it: line 35: ndd.random.uniform has no batch_size here: it returns one value for the whole batch, not one per sample; pass the batch size in and call it with batch_size=
    pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
    # dali-migrate: DM230 the graph of pipe, which stays in pipeline mode with everything that uses it: line 35: ndd.random.uniform has no batch_size here: it returns one value for the whole batch, not one per sample; pass the batch size in and call it with batch_size=
    with pipe:
        jpegs, labels = fn.readers.file(file_root=root)
        images = fn.decoders.image(jpegs)
        pipe.set_outputs(images + shift, labels)
    return pipe
