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


# dali-migrate: DM230 flip builds part of flipped, which stays in pipeline mode with everything that uses it: line 16: flip stays as it was (pipeline mode) for its fn.random.coin_flip(seed=...): pipeline mode ran it once, when a pipeline defined its graph, and an RNG made in it would restart at each call; its caller makes the RNG. ndd.random.coin_flip takes no seed= (TypeError) and no pipeline step the migration writes holds this call; dynamic mode's counterpart is rng=ndd.random.RNG(seed=...) made once per operator, beside the loop of steps (values differ from pipeline mode's)
def flip(images):
    # dali-migrate: DM112 flip stays as it was (pipeline mode) for its fn.random.coin_flip(seed=...): pipeline mode ran it once, when a pipeline defined its graph, and an RNG made in it would restart at each call; its caller makes the RNG. ndd.random.coin_flip takes no seed= (TypeError) and no pipeline step the migration writes holds this call; dynamic mode's counterpart is rng=ndd.random.RNG(seed=...) made once per operator, beside the loop of steps (values differ from pipeline mode's)
    return fn.flip(images, horizontal=fn.random.coin_flip(seed=SEED))


# dali-migrate: DM230 computed_root stays in pipeline mode with everything that uses it: line 11: ndd.readers.File is a stateful reader: create it once and iterate reader.next_epoch(batch_size=...); calling it does not return batches
@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def computed_root(parent):
    jpegs, labels = reader(parent + "/train")
    return jpegs, labels


# dali-migrate: DM230 flipped stays in pipeline mode with everything that uses it: line 16: flip stays as it was (pipeline mode) for its fn.random.coin_flip(seed=...): pipeline mode ran it once, when a pipeline defined its graph, and an RNG made in it would restart at each call; its caller makes the RNG. ndd.random.coin_flip takes no seed= (TypeError) and no pipeline step the migration writes holds this call; dynamic mode's counterpart is rng=ndd.random.RNG(seed=...) made once per operator, beside the loop of steps (values differ from pipeline mode's)
@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def flipped():
    jpegs, labels = fn.readers.file(file_root="images")
    return flip(fn.decoders.image(jpegs)), labels


readers = [reader]
