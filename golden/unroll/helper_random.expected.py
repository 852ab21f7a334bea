import nvidia.dali.experimental.dynamic as ndd


def augment(images, strong):
    # A helper the pipeline calls: the unroll cannot give its random ops a batch size or an rng.
    # dali-migrate: DM216 ndd.random.uniform has no batch_size here: it returns one value for the whole batch, not one per sample; pass the batch size in and call it with batch_size=; it also gets no rng=: the migrated pipeline seeds RNG objects, so this op draws from the unseeded default RNG (values change from run to run); pass the pipeline's rng in
    angle = ndd.random.uniform(range=(-30, 30))
    images = ndd.rotate(images, angle=angle)
    if strong:
        # dali-migrate: DM216 ndd.random.coin_flip gets no rng=: the migrated pipeline seeds RNG objects, so this op draws from the unseeded default RNG (values change from run to run); pass the pipeline's rng in
        images = ndd.flip(images, horizontal=ndd.random.coin_flip(images))
    return images, angle


def pipe(strong=True, *, batch_size=4, num_threads=1, device_id=None, seed=12):
    if num_threads is not None and num_threads > ndd.get_num_threads():
        ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
    rng_1 = ndd.random.RNG(seed=5)
    reader = ndd.readers.File(file_root="data", random_shuffle=True, seed=3)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs)
            images, angle = augment(images, strong)
            noise = ndd.random.normal(shape=[2], rng=rng_1, batch_size=batch_size)
            yield images, labels, angle, noise
