from nvidia.dali import pipeline_def, fn


def augment(images, strong):
    # A helper the pipeline calls: its random ops get the batch size of its data, but the unroll cannot give
    # them the pipeline's rng (the pipeline seeds RNG objects).
    angle = fn.random.uniform(range=(-30, 30))
    images = fn.rotate(images, angle=angle)
    if strong:
        images = fn.flip(images, horizontal=fn.random.coin_flip(images))
    return images, angle


@pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=12)
def pipe(strong=True):
    jpegs, labels = fn.readers.file(file_root="data", random_shuffle=True, seed=3)
    images = fn.decoders.image(jpegs)
    images, angle = augment(images, strong)
    noise = fn.random.normal(shape=[2], seed=5)
    return images, labels, angle, noise
