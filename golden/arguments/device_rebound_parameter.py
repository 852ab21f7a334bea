"""A device parameter rebound to the decoder's device (as segmentation data generators write it):
``device = 'mixed' if 'gpu' in device.lower() else 'cpu'``. Every later read of the variable is an operator's
device or a test that answers the same for "mixed" and "gpu" ('cpu' in device, device != 'cpu'), so the
assignment's "mixed" is spelled "gpu"; the condition reads the parameter, which keeps its value. A read that
could tell "mixed" from "gpu" keeps the variable as it is and the call marked."""

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1)
def masks_pipe(files, device="gpu", shard_id=0, num_shards=1):
    device = 'mixed' if 'gpu' in device.lower() else 'cpu'
    shard_id = 1 if 'cpu' in device else shard_id
    pngs, labels = fn.readers.file(files=files, shard_id=shard_id, num_shards=num_shards)
    images = fn.decoders.image(pngs, device=device, output_type=types.RGB)
    masks = fn.decoders.image(pngs, device=device, output_type=types.GRAY)
    if device != 'cpu':
        labels = labels.gpu()
    return images, masks, labels


def make_generator(files, batch_size, device):
    """A TF2-style data generator: the pipeline function is nested, its device a parameter of its own."""

    @pipeline_def(batch_size=batch_size, num_threads=1)
    def nested_pipe(device):
        device = "mixed" if "gpu" in device.lower() else "cpu"
        pngs, labels = fn.readers.file(files=files)
        return fn.decoders.image(pngs, device=device), labels

    return nested_pipe(device)


@pipeline_def(batch_size=2, num_threads=1)
def compared_with_mixed(files, device="gpu"):
    device = 'mixed' if 'gpu' in device.lower() else 'cpu'
    pngs, labels = fn.readers.file(files=files)
    scale = 2 if device == 'mixed' else 1  # tells "mixed" from "gpu": the variable stays
    return fn.decoders.image(pngs, device=device) * scale, labels


@pipeline_def(batch_size=2, num_threads=1)
def printed(files, device="gpu"):
    device = 'mixed' if 'gpu' in device.lower() else 'cpu'
    print("decoding on", device)  # printed: the variable stays
    pngs, labels = fn.readers.file(files=files)
    return fn.decoders.image(pngs, device=device), labels


def run(files):
    pipe = masks_pipe(files, device="cpu", num_shards=2)
    pipe.build()
    print(pipe.run()[2].as_array().ravel().tolist())
    generated = make_generator(files, 2, "cpu")
    generated.build()
    print(generated.run()[1].as_array().ravel().tolist())
    for kept in (compared_with_mixed(files, device="cpu"), printed(files, device="cpu")):
        kept.build()
        print(kept.run()[1].as_array().ravel().tolist())
