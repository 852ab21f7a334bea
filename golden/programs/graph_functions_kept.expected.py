"""Graph functions the migration leaves: a reader function also used as a value, a reader function
whose call passes a computed argument, a seed that is not a literal."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def

SEED = 5


# dali-migrate: DM230 reader builds part of computed_root, which stays in pipeline mode with everything that uses it: line 11: ndd.readers.File is a stateful reader: create it once and iterate reader.next_epoch(batch_size=...); calling it does not return batches
def reader(root):
    # dali-migrate: DM104 ndd.readers.File is a stateful reader: create it once and iterate reader.next_epoch(batch_size=...); calling it does not return batches
    jpegs, labels = fn.readers.file(file_root=root)
    return jpegs, labels


# dali-migrate: DM230 flip builds part of flipped, which stays in pipeline mode with everything that uses it: line 16: seed= on ndd.random.coin_flip raises TypeError, and an ndd.random.RNG(seed=...) made in this function would restart at each call (a pipeline ran a helper once, when it defined its graph; migrated, it runs every step): let its caller create rng = ndd.random.RNG(seed=...) once and pass rng=rng
def flip(images):
    # dali-migrate: DM112 seed= on ndd.random.coin_flip raises TypeError, and an ndd.random.RNG(seed=...) made in this function would restart at each call (a pipeline ran a helper once, when it defined its graph; migrated, it runs every step): let its caller create rng = ndd.random.RNG(seed=...) once and pass rng=rng
    return fn.flip(images, horizontal=fn.random.coin_flip(seed=SEED))


# dali-migrate: DM230 computed_root stays in pipeline mode with everything that uses it: line 11: ndd.readers.File is a stateful reader: create it once and iterate reader.next_epoch(batch_size=...); calling it does not return batches
@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def computed_root(parent):
    jpegs, labels = reader(parent + "/train")
    return jpegs, labels


# dali-migrate: DM230 flipped stays in pipeline mode with everything that uses it: line 16: seed= on ndd.random.coin_flip raises TypeError, and an ndd.random.RNG(seed=...) made in this function would restart at each call (a pipeline ran a helper once, when it defined its graph; migrated, it runs every step): let its caller create rng = ndd.random.RNG(seed=...) once and pass rng=rng
@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def flipped():
    jpegs, labels = fn.readers.file(file_root="images")
    return flip(fn.decoders.image(jpegs)), labels


readers = [reader]
