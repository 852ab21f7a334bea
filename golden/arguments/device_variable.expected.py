"""A device kept in a variable (NVIDIA's ResNet-50 example): "mixed" is spelled "gpu" where the variable is
bound and compared, when the variable only names operators' devices; otherwise it is left as it is."""

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


@Prefetch(depth=2)
def resnet_style(data_dir, dali_cpu=False, *, batch_size=2):
    dali_device = 'cpu' if dali_cpu else 'gpu'
    decoder_device = 'cpu' if dali_cpu else 'gpu'
    device_memory_padding = 211025920 if decoder_device == 'gpu' else 0
    reader = ndd.readers.File(file_root=data_dir)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs, device=decoder_device, output_type=types.RGB,
                                       device_memory_padding=device_memory_padding)
            images = ndd.resize(images, device=dali_device, resize_x=8, resize_y=8)
            yield images, labels


# dali-migrate: DM230 also_logged stays in pipeline mode with everything that uses it: line 26: device=decoder can be "mixed", which ndd rejects (ValueError when the step runs); the variable is used other than as a device, so it is not rewritten: pass device="gpu" if decoder == "mixed" else decoder
@pipeline_def(batch_size=2, num_threads=1)
def also_logged(data_dir, cpu=False):
    jpegs, labels = fn.readers.file(file_root=data_dir)
    decoder = "cpu" if cpu else "mixed"
    print("decoding on", decoder)  # the value is printed: it stays "mixed" (and the call is left to a person)
    # dali-migrate: DM115 device=decoder can be "mixed", which ndd rejects (ValueError when the step runs); the variable is used other than as a device, so it is not rewritten: pass device="gpu" if decoder == "mixed" else decoder
    return fn.decoders.image(jpegs, device=decoder), labels


def run(data_dir):
    pipe = resnet_style(data_dir)
    print(np.array(ndd.as_tensor(next(pipe)[1])).ravel().tolist())
    logged = also_logged(data_dir)
    logged.build()
    print(logged.run()[1].as_array().ravel().tolist())
