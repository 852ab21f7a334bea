from nvidia.dali import pipeline_def, fn


# dali-migrate: DM230 augment builds part of pipe, which stays in pipeline mode with everything that uses it: line 7: ndd.random.uniform gets no rng=: the migrated pipeline seeds RNG objects, so this op draws from the unseeded default RNG (values change from run to run); pass the pipeline's rng in; line 10: ndd.random.coin_flip gets no rng=: the migrated pipeline seeds RNG objects, so this op draws from the unseeded default RNG (values change from run to run); pass the pipeline's rng in
def augment(images, strong):
    # A helper the pipeline calls: its random ops get the batch size of its data, but the unroll cannot give
    # them the pipeline's rng (the pipeline seeds RNG objects).
    # dali-migrate: DM216 ndd.random.uniform gets no rng=: the migrated pipeline seeds RNG objects, so this op draws from the unseeded default RNG (values change from run to run); pass the pipeline's rng in
    angle = fn.random.uniform(range=(-30, 30))
    images = fn.rotate(images, angle=angle)
    if strong:
        # dali-migrate: DM216 ndd.random.coin_flip gets no rng=: the migrated pipeline seeds RNG objects, so this op draws from the unseeded default RNG (values change from run to run); pass the pipeline's rng in
        images = fn.flip(images, horizontal=fn.random.coin_flip(images))
    return images, angle


# dali-migrate: DM230 pipe stays in pipeline mode with everything that uses it: line 7: ndd.random.uniform gets no rng=: the migrated pipeline seeds RNG objects, so this op draws from the unseeded default RNG (values change from run to run); pass the pipeline's rng in; line 10: ndd.random.coin_flip gets no rng=: the migrated pipeline seeds RNG objects, so this op draws from the unseeded default RNG (values change from run to run); pass the pipeline's rng in
@pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=12)
def pipe(strong=True):
    jpegs, labels = fn.readers.file(file_root="data", random_shuffle=True, seed=3)
    images = fn.decoders.image(jpegs)
    images, angle = augment(images, strong)
    noise = fn.random.normal(shape=[2], seed=5)
    return images, labels, angle, noise
