"""A device parameter rebound to the decoder's device (as segmentation data generators write it):
``device = 'mixed' if 'gpu' in device.lower() else 'cpu'``. Every later read of the variable is an operator's
device or a test that answers the same for "mixed" and "gpu" ('cpu' in device, device != 'cpu'), so the
assignment's "mixed" is spelled "gpu"; the condition reads the parameter, which keeps its value. A read that
could tell "mixed" from "gpu" keeps the variable as it is and the call marked."""

import contextlib
import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


@Prefetch(depth=2)
def masks_pipe(files, device="gpu", shard_id=0, num_shards=1, *, batch_size=2):
    device = 'gpu' if 'gpu' in device.lower() else 'cpu'
    shard_id = 1 if 'cpu' in device else shard_id
    reader = ndd.readers.File(files=files, shard_id=shard_id, num_shards=num_shards)
    while True:
        for pngs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(pngs, device=device, output_type=types.RGB)
            masks = ndd.decoders.image(pngs, device=device, output_type=types.GRAY)
            if device != 'cpu':
                labels = labels.gpu()
            yield images, masks, labels


def make_generator(files, batch_size, device):
    """A TF2-style data generator: the pipeline function is nested, its device a parameter of its own."""

    @Prefetch(depth=2)
    def nested_pipe(device, *, batch_size=batch_size, num_threads=1, device_id=None, seed=None):
        with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():
            if num_threads is not None and num_threads > ndd.get_num_threads():
                ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            device = "gpu" if "gpu" in device.lower() else "cpu"
            reader = ndd.readers.File(files=files)
            while True:
                for pngs, labels in reader.next_epoch(batch_size=batch_size):
                    yield ndd.decoders.image(pngs, device=device), labels

    return nested_pipe(device)


# dali-migrate: DM230 compared_with_mixed stays in pipeline mode with everything that uses it (one unit with printed): line 41: device=device can be "mixed", which ndd rejects (ValueError when the step runs); the variable is used other than as a device, so it is not rewritten: pass device="gpu" if device == "mixed" else device; line 49: device=device can be "mixed", which ndd rejects (ValueError when the step runs); the variable is used other than as a device, so it is not rewritten: pass device="gpu" if device == "mixed" else device
@pipeline_def(batch_size=2, num_threads=1)
def compared_with_mixed(files, device="gpu"):
    device = 'mixed' if 'gpu' in device.lower() else 'cpu'
    pngs, labels = fn.readers.file(files=files)
    scale = 2 if device == 'mixed' else 1  # tells "mixed" from "gpu": the variable stays
    # dali-migrate: DM115 device=device can be "mixed", which ndd rejects (ValueError when the step runs); the variable is used other than as a device, so it is not rewritten: pass device="gpu" if device == "mixed" else device
    return fn.decoders.image(pngs, device=device) * scale, labels


# dali-migrate: DM230 printed stays in pipeline mode with everything that uses it (one unit with compared_with_mixed): line 41: device=device can be "mixed", which ndd rejects (ValueError when the step runs); the variable is used other than as a device, so it is not rewritten: pass device="gpu" if device == "mixed" else device; line 49: device=device can be "mixed", which ndd rejects (ValueError when the step runs); the variable is used other than as a device, so it is not rewritten: pass device="gpu" if device == "mixed" else device
@pipeline_def(batch_size=2, num_threads=1)
def printed(files, device="gpu"):
    device = 'mixed' if 'gpu' in device.lower() else 'cpu'
    print("decoding on", device)  # printed: the variable stays
    pngs, labels = fn.readers.file(files=files)
    # dali-migrate: DM115 device=device can be "mixed", which ndd rejects (ValueError when the step runs); the variable is used other than as a device, so it is not rewritten: pass device="gpu" if device == "mixed" else device
    return fn.decoders.image(pngs, device=device), labels


def run(files):
    pipe = masks_pipe(files, device="cpu", num_shards=2)
    print(np.array(ndd.as_tensor(next(pipe)[2])).ravel().tolist())
    generated = make_generator(files, 2, "cpu")
    print(np.array(ndd.as_tensor(next(generated)[1])).ravel().tolist())
    for kept in (compared_with_mixed(files, device="cpu"), printed(files, device="cpu")):
        kept.build()
        print(kept.run()[1].as_array().ravel().tolist())
