"""A device kept in a variable (NVIDIA's ResNet-50 example): "mixed" is spelled "gpu" where the variable is
bound and compared, when the variable only names operators' devices; otherwise it is left as it is."""

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1)
def resnet_style(data_dir, dali_cpu=False):
    jpegs, labels = fn.readers.file(file_root=data_dir)
    dali_device = 'cpu' if dali_cpu else 'gpu'
    decoder_device = 'cpu' if dali_cpu else 'mixed'
    device_memory_padding = 211025920 if decoder_device == 'mixed' else 0
    images = fn.decoders.image(jpegs, device=decoder_device, output_type=types.RGB,
                               device_memory_padding=device_memory_padding)
    images = fn.resize(images, device=dali_device, resize_x=8, resize_y=8)
    return images, labels


@pipeline_def(batch_size=2, num_threads=1)
def also_logged(data_dir, cpu=False):
    jpegs, labels = fn.readers.file(file_root=data_dir)
    decoder = "cpu" if cpu else "mixed"
    print("decoding on", decoder)  # the value is printed: it stays "mixed" (and the call is left to a person)
    return fn.decoders.image(jpegs, device=decoder), labels


def run(data_dir):
    pipe = resnet_style(data_dir)
    pipe.build()
    print(pipe.run()[1].as_array().ravel().tolist())
    logged = also_logged(data_dir)
    logged.build()
    print(logged.run()[1].as_array().ravel().tolist())
