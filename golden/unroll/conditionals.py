"""Per-sample conditionals (enable_conditionals=True): each `if` on pipeline data splits the batch, runs each
branch on its samples and merges the values the branches assign, in sample order."""

from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=4, num_threads=2, device_id=0, enable_conditionals=True)
def flips(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="mixed")
    # mirror the first class, turn the others upside down
    if labels[0] == 1:
        images = fn.flip(images, horizontal=1)
    else:
        images = fn.flip(images, vertical=1)
    return images, labels


@pipeline_def(batch_size=4, num_threads=2, device_id=0, seed=12, enable_conditionals=True)
def chains(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    brightness = fn.reductions.mean(images)
    if brightness > 100 and not labels[0] == 0:
        images = fn.resize(images, size=[8, 8])
        angle = fn.random.uniform(range=[-10, 10])
        images = fn.rotate(images, angle=angle, keep_size=True)
    elif brightness > 50 or labels[0] == 2:
        if labels[0] == 1:
            images = fn.resize(images, size=[8, 8])
        else:
            images = fn.resize(images, size=[8, 8], interp_type=types.INTERP_NN)
    else:
        images = fn.crop(images, crop=[8, 8])
    dark = not brightness > 100
    if dark:
        images = images * 0.5
    return images, labels, dark


def run(root):
    outputs = []
    for make in (flips, chains):
        pipe = make(root)
        pipe.build()
        outputs.append(pipe.run())
    return outputs
